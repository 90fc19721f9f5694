import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createCalendar } from '../helpers/calendars.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

/** The bodies a fuzzer sends to a route that takes none: JSON that is no object, and plain text. */
const ODD_BODIES = [
  { 'content-type': 'application/json', payload: '[]' },
  { 'content-type': 'application/json', payload: 'null' },
  { 'content-type': 'application/json', payload: '"text"' },
  { 'content-type': 'text/plain', payload: 'plain text' },
];

/** The honeypot blocks the caller's address by design: every later request would answer 403. */
const SKIPPED = new Set(['/api/security/honeypot/submit']);

/**
 * Every POST route whose body is optional or absent, as the OpenAPI document lists them,
 * gets each odd body, all at once (as a fuzzer sends them): never a 500 (a 502 is the payment
 * provider this test has none of), on either database.
 * A route that takes no body answers as it does without one.
 */
describe('POST routes without a required body, sent odd bodies at once', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const ids: Record<string, number> = {};
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner);
    ids.resources = (await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id })).id;
    ids.calendars = (await createCalendar(t.app, owner)).id;
    ids.organisations = owner.organisationId;
  });
  after(() => t.close());

  /** The route's path with its parameters filled: the owner's own entity where there is one. */
  const urlOf = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string, offset: number) => {
      const collection = /\/api\/([\w-]+)\/$/.exec(path.slice(0, offset))?.[1] ?? '';
      return String(name === 'id' ? (ids[collection] ?? 1) : name === 'provider' ? 'calendar_provider_a' : 1);
    });

  function bodylessPostRoutes(): string[] {
    const spec = t.app.swagger() as {
      paths: Record<string, { post?: { requestBody?: { required?: boolean } } }>;
    };
    return Object.entries(spec.paths)
      .filter(
        ([path, operations]) =>
          operations.post && !operations.post.requestBody?.required && !SKIPPED.has(path),
      )
      .map(([path]) => path);
  }

  test('none answers 500, and a bodiless route answers as without a body', async () => {
    const routes = bodylessPostRoutes();
    assert.ok(routes.includes('/api/resources/{id}/feed') && routes.includes('/api/calendars/{id}/feed'));
    for (const path of routes) {
      const url = urlOf(path);
      const send = (headers: Record<string, string>, payload?: string) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { ...owner.auth, ...headers },
          ...(payload === undefined ? {} : { payload }),
        });
      const bare = await send({});
      const odd = await Promise.all(ODD_BODIES.map(({ payload, ...headers }) => send(headers, payload)));
      for (const [index, response] of odd.entries())
        assert.ok(
          response.statusCode !== 500,
          `${path} with ${ODD_BODIES[index]!.payload}: ${response.statusCode} ${response.body}`,
        );
      if (path === '/api/mcp' || path.includes('webhooks/')) continue; // these read what they are sent
      for (const [index, response] of odd.entries())
        assert.equal(
          response.statusCode,
          bare.statusCode,
          `${path} with ${ODD_BODIES[index]!.payload}: ${response.statusCode} ${response.body}`,
        );
    }
  });
});
