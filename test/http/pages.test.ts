import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import pages, { DEFAULT_WEB_ROOT, loadStaticFiles, PAGE_CSP } from '../../src/http/pages.js';
import helmet from '../../src/plugins/helmet.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const API_CSP = "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'self'";

function assertPageHeaders(headers: Record<string, unknown>) {
  assert.equal(headers['content-security-policy'], PAGE_CSP);
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['x-content-type-options'], 'nosniff');
}

describe('web pages', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('the consent page: HTML, the page CSP instead of the API one, never cached', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/oauth/consent?client_id=x&state=y' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    assertPageHeaders(r.headers);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.match(r.body, /<script type="module" src="\/oauth\/consent\.js"><\/script>/);
    assert.equal(r.body, readFileSync(join(DEFAULT_WEB_ROOT, 'oauth/consent.html'), 'utf8'));
    // Exactly one policy: two would both apply, and the API one would block the page's script.
    assert.equal(typeof r.headers['content-security-policy'], 'string');
  });

  test('no inline script or style in the page', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/oauth/consent' });
    assert.doesNotMatch(r.body, /<script(?![^>]*\bsrc=)[^>]*>/i);
    assert.doesNotMatch(r.body, /<style\b/i);
    assert.doesNotMatch(r.body, /\sstyle=/i);
    assert.doesNotMatch(r.body, /\son[a-z]+=/i);
  });

  test('assets: content types, revalidation by ETag', async () => {
    const js = await t.app.inject({ method: 'GET', url: '/oauth/consent.js' });
    assert.equal(js.statusCode, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assertPageHeaders(js.headers);
    assert.equal(js.headers['cache-control'], 'no-cache');
    assert.match(String(js.headers.etag), /^"[A-Za-z0-9_-]+"$/);

    const css = await t.app.inject({ method: 'GET', url: '/oauth/consent.css' });
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');

    const again = await t.app.inject({
      method: 'GET',
      url: '/oauth/consent.js',
      headers: { 'if-none-match': String(js.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const head = await t.app.inject({ method: 'HEAD', url: '/oauth/consent.css' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-type'], 'text/css; charset=utf-8');
  });

  test('unknown assets and the raw .html path are 404 in the normal envelope', async () => {
    for (const url of ['/oauth/missing.js', '/oauth/consent.html', '/oauth/../package.json', '/oauth/']) {
      const r = await t.app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 404, url);
      assert.equal(r.json().error.code, 'NOT_FOUND');
    }
  });

  test('API routes keep the strict API policy', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(r.headers['content-security-policy'], API_CSP);
    assert.equal(r.headers['x-frame-options'], 'SAMEORIGIN');
  });
});

describe('web folder mapping', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'pages-'));
    mkdirSync(join(root, 'calendar-sync'));
    mkdirSync(join(root, 'oauth'));
    writeFileSync(join(root, 'calendar-sync', 'index.html'), '<!doctype html><title>sync</title>');
    writeFileSync(join(root, 'calendar-sync', 'landing.js'), 'export {};');
    writeFileSync(join(root, 'oauth', 'consent.html'), '<!doctype html><title>consent</title>');
    writeFileSync(join(root, 'oauth', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(root, 'oauth', 'NOTES.md'), 'not served');
    writeFileSync(join(root, 'oauth', '.secret.js'), 'not served');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('a page per HTML file, index.html at its folder, other known types by path', () => {
    const files = loadStaticFiles(root)
      .map((file) => [file.url, file.contentType, file.isPage] as const)
      .sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(files, [
      ['/calendar-sync', 'text/html; charset=utf-8', true],
      ['/calendar-sync/landing.js', 'text/javascript; charset=utf-8', false],
      ['/oauth/consent', 'text/html; charset=utf-8', true],
      ['/oauth/logo.svg', 'image/svg+xml', false],
    ]);
  });

  test('a new page is served by adding its file, with the page headers over helmet', async () => {
    const app = Fastify();
    await app.register(helmet);
    await app.register(pages, { root });
    const r = await app.inject({ method: 'GET', url: '/calendar-sync?success=connected' });
    assert.equal(r.statusCode, 200);
    assertPageHeaders(r.headers);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal((await app.inject({ method: 'GET', url: '/oauth/NOTES.md' })).statusCode, 404);
    await app.close();
  });
});
