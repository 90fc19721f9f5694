// embed.js (frontend/public/embed.js, served at <FRONTEND_URL>/embed.js): a host site loads it on
// every visit, so it stays small and self-contained (DECISIONS.md "Booking everywhere": under 5 KB
// gzipped), a classic script that any browser runs as served.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

const source = readFileSync(join(PROJECT_ROOT, 'frontend', 'public', 'embed.js'), 'utf8');

test('embed.js stays under 5 KB gzipped', () => {
  const gzipped = gzipSync(source, { level: 9 }).length;
  assert.ok(gzipped < 5 * 1024, `embed.js is ${gzipped} bytes gzipped`);
});

test('embed.js is a classic script: no imports, exports or framework', () => {
  assert.doesNotMatch(source, /^\s*(import|export)\s/m);
  assert.doesNotMatch(source, /\brequire\(|react/i);
});
