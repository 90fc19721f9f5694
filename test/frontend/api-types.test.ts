// The web app's API types are generated from the OpenAPI document the service serves
// (scripts/api-types.ts): this fails while the committed file is stale.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { API_TYPES_PATH, apiTypesOf, openApiDocument } from '../../scripts/api-types.js';

test('frontend/src/api/schema.d.ts is what the OpenAPI document generates (else: npm run api-types)', async () => {
  const doc = await openApiDocument();
  const expected = await apiTypesOf(doc);
  assert.ok(
    expected.includes('"/api/public/organisations/{slug}/holds"'),
    'the public booking routes are typed',
  );
  assert.ok(!expected.includes('"/api/auth/api-keys"'), 'only the paths the pages call');
  assert.equal(readFileSync(API_TYPES_PATH, 'utf8'), expected, 'stale: run `npm run api-types`');
});
