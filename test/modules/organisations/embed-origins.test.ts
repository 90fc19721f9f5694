// The organisation's `embedOrigins` (DECISIONS.md "Booking everywhere", issue 53): the origins
// whose pages may frame its booking page. The field on create, update and read, its refusals, and
// the booking page's frame-ancestors, read on every request; every other page keeps 'none'.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PAGE_CSP } from '../../../src/http/pages.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { call, expectStatus, validationDetails } from '../../helpers/http.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';

const INDEX = '<!doctype html><html lang="en"><body><div id="root"></div></body></html>';
const EMBED_JS = '(function () { /* embed */ })();\n';

describe('organisation embedOrigins', () => {
  let t: TestApp;
  let root: string;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'embed-pages-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'embed.js'), EMBED_JS);
    t = await createTestApp({}, { frontendRoot: root });
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  const organisationUrl = (id: number) => `/api/organisations/${id}`;

  test('empty by default; create and update set it, each origin as the browser spells it', async () => {
    const owner = await ownerWithOrganisation(t.app);
    const read = expectStatus(await call(t.app, owner, 'GET', organisationUrl(owner.organisationId)), 200);
    assert.deepEqual(read.embedOrigins, []);

    const creator = await registerUser(t.app);
    const created = expectStatus(
      await call(t.app, creator, 'POST', '/api/organisations', {
        name: 'Second',
        embedOrigins: ['https://Shop.Example.com', 'https://shop.example.com:8443'],
      }),
      201,
    );
    assert.deepEqual(created.embedOrigins, ['https://shop.example.com', 'https://shop.example.com:8443']);

    const updated = expectStatus(
      await call(t.app, owner, 'PATCH', organisationUrl(owner.organisationId), {
        embedOrigins: ['https://www.example.org:443', 'http://localhost:5173', 'http://127.0.0.1:8080'],
      }),
      200,
    );
    assert.deepEqual(updated.embedOrigins, [
      'https://www.example.org',
      'http://localhost:5173',
      'http://127.0.0.1:8080',
    ]);
    const again = expectStatus(await call(t.app, owner, 'GET', organisationUrl(owner.organisationId)), 200);
    assert.deepEqual(again.embedOrigins, updated.embedOrigins);
    // Another field's change leaves the list alone; [] clears it.
    await call(t.app, owner, 'PATCH', organisationUrl(owner.organisationId), { phone: '+1 555 0100' });
    const kept = expectStatus(await call(t.app, owner, 'GET', organisationUrl(owner.organisationId)), 200);
    assert.deepEqual(kept.embedOrigins, updated.embedOrigins);
    const cleared = expectStatus(
      await call(t.app, owner, 'PATCH', organisationUrl(owner.organisationId), { embedOrigins: [] }),
      200,
    );
    assert.deepEqual(cleared.embedOrigins, []);
  });

  test('bad origins: 400 naming the entry, nothing written', async () => {
    const owner = await ownerWithOrganisation(t.app);
    const url = organisationUrl(owner.organisationId);
    const refusals: [unknown, string][] = [
      [['http://shop.example.com'], 'body.embedOrigins.0: must be an https origin'],
      [
        ['https://shop.example.com', 'https://shop.example.com/book'],
        'body.embedOrigins.1: must be an origin without a path',
      ],
      [['https://shop.example.com/'], 'body.embedOrigins.0: must be an origin without a path'],
      [['https://shop.example.com?x=1'], 'body.embedOrigins.0: must be an origin without a path'],
      [['https://*.example.com'], 'body.embedOrigins.0: must name one origin, without a wildcard'],
      [['*'], 'body.embedOrigins.0: must name one origin, without a wildcard'],
      [['shop.example.com'], 'body.embedOrigins.0: must be an origin'],
      [['ftp://shop.example.com'], 'body.embedOrigins.0: must be an https origin'],
      [['https://user:pw@shop.example.com'], 'body.embedOrigins.0: must not carry a user name or password'],
      [['https://a.example', 'https://A.example:443'], 'body.embedOrigins.1: repeats https://a.example'],
      [
        Array.from({ length: 11 }, (_, i) => `https://shop${i}.example.com`),
        'body.embedOrigins: at most 10 origins',
      ],
      ['https://shop.example.com', 'body.embedOrigins: '],
      [[42], 'body.embedOrigins.0: '],
    ];
    for (const [embedOrigins, expected] of refusals) {
      const details = validationDetails(await call(t.app, owner, 'PATCH', url, { embedOrigins, phone: '1' }));
      assert.ok(
        details.some((line) => line.startsWith(expected)),
        `${JSON.stringify(embedOrigins)}: ${details.join('; ')}`,
      );
      const created = await call(t.app, owner, 'POST', '/api/organisations', { name: 'X', embedOrigins });
      assert.equal(created.statusCode, 400, JSON.stringify(embedOrigins));
    }
    const unchanged = expectStatus(await call(t.app, owner, 'GET', url), 200);
    assert.deepEqual(unchanged.embedOrigins, []);
    assert.equal(unchanged.phone, null, 'a refused change writes nothing');
    // Ten is the limit, not beyond it.
    const ten = Array.from({ length: 10 }, (_, i) => `https://shop${i}.example.com`);
    const accepted = expectStatus(await call(t.app, owner, 'PATCH', url, { embedOrigins: ten }), 200);
    assert.deepEqual(accepted.embedOrigins, ten);
  });

  test('the booking page may be framed by its origins, read on every request; other pages never', async () => {
    const slug = `embed-${Date.now()}`;
    const owner = await ownerWithOrganisation(t.app, { slug });
    const page = () => t.app.inject({ method: 'GET', url: `/book/${slug}` });

    const before = await page();
    assert.equal(before.statusCode, 200);
    assert.equal(before.headers['content-security-policy'], PAGE_CSP);
    assert.equal(before.headers['x-frame-options'], 'DENY');

    await call(t.app, owner, 'PATCH', organisationUrl(owner.organisationId), {
      embedOrigins: ['https://shop.example.com', 'http://localhost:5173'],
    });
    const framed = await page();
    const csp = String(framed.headers['content-security-policy']);
    assert.match(csp, /frame-ancestors https:\/\/shop\.example\.com http:\/\/localhost:5173;/);
    assert.equal(csp.replace(/frame-ancestors [^;]*;/, "frame-ancestors 'none';"), PAGE_CSP);
    assert.equal(framed.headers['x-frame-options'], undefined, 'DENY would forbid the frame');
    assert.notEqual(framed.headers.etag, before.headers.etag, 'a new list is not a 304 of the old page');
    const revalidated = await t.app.inject({
      method: 'GET',
      url: `/book/${slug}`,
      headers: { 'if-none-match': String(framed.headers.etag) },
    });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.headers['content-security-policy'], csp);

    for (const url of [
      '/book/no-such-organisation',
      '/manage/abc',
      '/payment/complete',
      '/app',
      '/approvals/1',
    ]) {
      const other = await t.app.inject({ method: 'GET', url });
      assert.equal(other.headers['content-security-policy'], PAGE_CSP, url);
      assert.equal(other.headers['x-frame-options'], 'DENY', url);
    }

    // Taken off the list: the very next load forbids the frame again.
    await call(t.app, owner, 'PATCH', organisationUrl(owner.organisationId), { embedOrigins: [] });
    const revoked = await page();
    assert.equal(revoked.headers['content-security-policy'], PAGE_CSP);
    assert.equal(revoked.headers['x-frame-options'], 'DENY');
  });

  test('an archived organisation’s booking page frames nowhere', async () => {
    const slug = `archived-${Date.now()}`;
    const owner = await ownerWithOrganisation(t.app, { slug, embedOrigins: ['https://shop.example.com'] });
    await call(t.app, owner, 'PATCH', organisationUrl(owner.organisationId), { isActive: false });
    const r = await t.app.inject({ method: 'GET', url: `/book/${slug}` });
    assert.equal(r.headers['content-security-policy'], PAGE_CSP);
  });

  test('/embed.js: a script any site may load, gzipped when asked', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/embed.js' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, EMBED_JS);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['cross-origin-resource-policy'], 'cross-origin');
    assert.equal(plain.headers['cache-control'], 'public, max-age=3600');
    const gzipped = await t.app.inject({
      method: 'GET',
      url: '/embed.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    const same = await t.app.inject({
      method: 'GET',
      url: '/embed.js',
      headers: { 'if-none-match': String(plain.headers.etag) },
    });
    assert.equal(same.statusCode, 304);
  });
});
