// The signed-in pages people reach from outside the console (/approvals, /oauth/consent,
// /calendar-sync) are routes of the web app (issue 27): the app's index.html with the page
// policy, the consent page never stored; the static pages they replaced are gone.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import pages, { APP_ROUTES, PAGE_CSP } from '../../src/http/pages.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import helmet from '../../src/plugins/helmet.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const API_CSP = "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'self'";
const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" crossorigin src="/assets/index-AbC123.js"></script>' +
  '</head><body><div id="root"></div></body></html>';

function assertPageHeaders(headers: Record<string, unknown>, path: string) {
  // Exactly one policy: two would both apply, and the API one would block the page's script.
  assert.equal(headers['content-security-policy'], PAGE_CSP, path);
  assert.equal(headers['x-frame-options'], 'DENY', path);
  assert.equal(headers['referrer-policy'], 'no-referrer', path);
  assert.equal(headers['x-content-type-options'], 'nosniff', path);
  assert.equal(headers['content-type'], 'text/html; charset=utf-8', path);
}

describe('the signed-in pages, served by the web app', () => {
  let app: FastifyInstance;
  let root: string;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'pages-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'assets', 'index-AbC123.js'), 'export {};');
    app = Fastify();
    await app.register(helmet);
    await app.register(pages, { frontendRoot: root });
  });
  after(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('each is an app route', () => {
    for (const route of ['/approvals', '/approvals/:id', '/oauth/consent', '/calendar-sync'])
      assert.ok((APP_ROUTES as readonly string[]).includes(route), route);
  });

  test('the consent page: the app, the page CSP instead of the API one, never stored', async () => {
    const query =
      'response_type=code&client_id=x&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&code_challenge=c&state=y';
    const r = await app.inject({ method: 'GET', url: `/oauth/consent?${query}` });
    assert.equal(r.statusCode, 200);
    assert.equal(r.body, INDEX);
    assertPageHeaders(r.headers, '/oauth/consent');
    // It carries one person's OAuth request: no copy in any cache, nothing to revalidate.
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers.etag, undefined);
    const again = await app.inject({
      method: 'GET',
      url: '/oauth/consent',
      headers: { 'if-none-match': '*' },
    });
    assert.equal(again.statusCode, 200);
    assert.equal(again.body, INDEX);
  });

  test('the approval page (by path or ?id=) and the calendar-sync landing: revalidated, private', async () => {
    for (const path of [
      '/approvals/9',
      '/approvals?id=9',
      '/calendar-sync',
      '/calendar-sync?success=connected&provider=calendar_provider_a',
      '/calendar-sync?connect=calendar_provider_b',
    ]) {
      const r = await app.inject({ method: 'GET', url: path });
      assert.equal(r.statusCode, 200, path);
      assert.equal(r.body, INDEX, path);
      assertPageHeaders(r.headers, path);
      assert.equal(r.headers['cache-control'], 'no-cache, private', path);
      const again = await app.inject({
        method: 'GET',
        url: path,
        headers: { 'if-none-match': String(r.headers.etag) },
      });
      assert.equal(again.statusCode, 304, path);
    }
  });

  test('paths beside them are not pages', async () => {
    for (const path of ['/approvals/9/x', '/oauth', '/oauth/consent/x', '/calendar-sync/x']) {
      const r = await app.inject({ method: 'GET', url: path });
      assert.equal(r.statusCode, 404, path);
    }
  });
});

describe('one origin: pages asked for by another loopback name move to it', () => {
  let root: string;
  const apps: FastifyInstance[] = [];
  async function serving(origin: string) {
    const app = Fastify();
    await app.register(helmet);
    await app.register(pages, { frontendRoot: root, origin });
    app.get('/api/thing', async () => ({ ok: true }));
    apps.push(app);
    return app;
  }
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'pages-origin-'));
    writeFileSync(join(root, 'index.html'), INDEX);
  });
  after(async () => {
    for (const app of apps) await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('without PUBLIC_URL the origin is http://localhost:<PORT>, and 127.0.0.1 and [::1] are sent there', async () => {
    const { frontendUrl, publicUrl } = loadConfig({ NODE_ENV: 'test', PORT: '4321' });
    assert.equal(publicUrl, 'http://localhost:4321');
    assert.equal(frontendUrl, 'http://localhost:4321');
    const app = await serving(frontendUrl);
    for (const host of ['127.0.0.1:4321', '[::1]:4321', '127.0.1.1:4321']) {
      const r = await app.inject({
        method: 'GET',
        url: '/payment/complete?reservation=4&x=%2F',
        headers: { host },
      });
      assert.equal(r.statusCode, 307, host);
      assert.equal(r.headers.location, 'http://localhost:4321/payment/complete?reservation=4&x=%2F', host);
    }
    const home = await app.inject({ method: 'GET', url: '/app', headers: { host: 'localhost:4321' } });
    assert.equal(home.statusCode, 200);
    assert.equal(home.body, INDEX);
    // The API answers on any name: its callers are programs, and a redirect would drop a POST's body.
    const api = await app.inject({ method: 'GET', url: '/api/thing', headers: { host: '127.0.0.1:4321' } });
    assert.equal(api.statusCode, 200);
  });

  test("a deployment's own host names are left alone", async () => {
    const app = await serving('https://book.example');
    for (const host of ['book.example', '127.0.0.1:3000', 'other.example']) {
      const r = await app.inject({ method: 'GET', url: '/book/salon', headers: { host } });
      assert.equal(r.statusCode, 200, host);
    }
    const pinned = await serving('http://127.0.0.1:3000');
    const r = await pinned.inject({ method: 'GET', url: '/app', headers: { host: 'localhost:3000' } });
    assert.equal(r.statusCode, 307);
    assert.equal(r.headers.location, 'http://127.0.0.1:3000/app');
  });
});

describe('the static pages they replaced', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('their old scripts, styles and raw HTML paths are the normal 404 envelope', async () => {
    for (const url of [
      '/oauth/consent.js',
      '/oauth/consent.css',
      '/oauth/consent.html',
      '/calendar-sync/calendar-sync.js',
      '/calendar-sync/calendar-sync.css',
      '/oauth/../package.json',
      '/oauth/',
    ]) {
      const r = await t.app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 404, url);
      assert.equal(r.json().error.code, 'NOT_FOUND', url);
    }
  });

  test('API routes keep the strict API policy', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(r.headers['content-security-policy'], API_CSP);
    assert.equal(r.headers['x-frame-options'], 'SAMEORIGIN');
  });
});

describe('the page modules (the CSP allows no inline script or style)', () => {
  const source = (path: string) => readFileSync(join(PROJECT_ROOT, 'frontend', path), 'utf8');

  test("the app's HTML has no inline script or style", () => {
    const html = source('index.html');
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i);
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
  });

  test('the three pages draw server values as text: no HTML injection, no inline styles', () => {
    for (const path of [
      'src/pages/ApprovalPage.tsx',
      'src/pages/ConsentPage.tsx',
      'src/pages/CalendarSyncPage.tsx',
      'src/pages/account-page.tsx',
    ]) {
      const code = source(path);
      assert.doesNotMatch(code, /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML/, path);
      assert.doesNotMatch(code, /\sstyle=\{/, path);
    }
  });
});
