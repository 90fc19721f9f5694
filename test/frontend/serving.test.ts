// How the service serves the built web app (src/http/pages.ts): index.html at each route of
// DECISIONS.md "Pages" with the page CSP and revalidation, hashed assets immutable and
// precompressed, and nothing else. A fixture build stands in for Vite's output.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import pages, { APP_ROUTES, PAGE_CSP } from '../../src/http/pages.js';
import helmet from '../../src/plugins/helmet.js';

const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" crossorigin src="/assets/index-AbC123.js"></script>' +
  '<link rel="stylesheet" href="/assets/index-DeF456.css"></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

describe('the web app, served', () => {
  let app: FastifyInstance;
  let root: string;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'frontend-build-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'assets', 'index-AbC123.js'), SCRIPT);
    writeFileSync(join(root, 'assets', 'index-AbC123.js.gz'), gzipSync(SCRIPT));
    writeFileSync(join(root, 'assets', 'index-DeF456.css'), 'body{margin:0}');
    app = Fastify();
    await app.register(helmet);
    await app.register(pages, { frontendRoot: root });
  });
  after(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('every page path answers the app, with the page CSP, revalidated on each visit', async () => {
    const paths = [
      '/book/salon-ute',
      '/manage/abc_DEF-123',
      '/payment/complete?reservation=4',
      '/approvals/9',
      '/approvals?id=9',
      '/calendar-sync?success=connected&provider=calendar_provider_a',
      '/verify-email/abc_DEF-123',
      '/forgot-password',
      '/reset-password/abc_DEF-123',
      '/app',
      '/app/organisations/3/types',
      '/app/invitations',
    ];
    assert.equal(APP_ROUTES.length, 12);
    for (const path of paths) {
      const r = await app.inject({ method: 'GET', url: path });
      assert.equal(r.statusCode, 200, path);
      assert.equal(r.body, INDEX, path);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(r.headers['content-security-policy'], PAGE_CSP);
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['referrer-policy'], 'no-referrer', 'a manage token never leaves in a Referer');
      assert.equal(r.headers['cache-control'], 'no-cache, private');
      const again = await app.inject({
        method: 'GET',
        url: path,
        headers: { 'if-none-match': String(r.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
    }
  });

  test("the booking page has the browser fetch the organisation's catalogue while its scripts load", async () => {
    const r = await app.inject({ method: 'GET', url: '/book/salon-ute' });
    assert.equal(
      r.headers.link,
      '</api/public/organisations/salon-ute>; rel=preload; as=fetch; crossorigin=anonymous',
    );
    const odd = await app.inject({ method: 'GET', url: '/book/a%3Eb%2C%20c' });
    assert.equal(
      odd.headers.link,
      '</api/public/organisations/a%3Eb%2C%20c>; rel=preload; as=fetch; crossorigin=anonymous',
    );
    assert.equal((await app.inject({ method: 'GET', url: '/manage/abc' })).headers.link, undefined);
  });

  test('the policy allows no inline script: the app page has none', () => {
    assert.doesNotMatch(PAGE_CSP, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(INDEX, /<script(?![^>]*\bsrc=)[^>]*>/i);
  });

  test('hashed assets: immutable for a year, precompressed when the browser takes it', async () => {
    const plain = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, SCRIPT);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(plain.headers['content-type']), /javascript/);
    assert.equal(plain.headers['content-security-policy'], PAGE_CSP);
    const gz = await app.inject({
      method: 'GET',
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(gz.rawPayload.length < SCRIPT.length / 4);
    const css = await app.inject({ method: 'GET', url: '/assets/index-DeF456.css' });
    assert.match(String(css.headers['content-type']), /text\/css/);
  });

  test('the OAuth consent page is the app too, never stored (its address carries the OAuth request)', async () => {
    const r = await app.inject({ method: 'GET', url: '/oauth/consent?client_id=x&state=y' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.body, INDEX);
    assert.equal(r.headers['content-security-policy'], PAGE_CSP);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers.etag, undefined);
  });

  test('unknown assets and paths outside the pages are 404; no directory listing', async () => {
    for (const path of [
      '/assets/missing-123.js',
      '/assets/',
      '/book',
      '/index.html',
      '/manage',
      '/bookings/x',
    ]) {
      const r = await app.inject({ method: 'GET', url: path });
      assert.equal(r.statusCode, 404, path);
    }
  });

  test('without a build the API still starts; the pages are simply not there', async () => {
    const bare = Fastify({ logger: false });
    await bare.register(helmet);
    await bare.register(pages, { frontendRoot: join(root, 'nothing-here') });
    assert.equal((await bare.inject({ method: 'GET', url: '/book/x' })).statusCode, 404);
    await bare.close();
  });
});
