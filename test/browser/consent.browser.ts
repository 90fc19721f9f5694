// The OAuth consent page in a real browser (the system Chromium through playwright-core),
// against a listening app and a client registered over HTTP. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestApp, freePort, registerUser, type SignedInUser, type TestApp } from '../helpers/app.js';
import { checkAtBothWidths, launchChromium, problemsOf } from '../helpers/browser.js';

/** An https logo; the browser context answers it (no network in tests). */
const LOGO = 'https://planner.example.com/logo.svg';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 56 56"><rect width="56" height="56" rx="10" fill="#0f766e"/>' +
  '<text x="28" y="37" font-size="22" font-family="sans-serif" text-anchor="middle" fill="#fff">TP</text></svg>';

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** A free port found first, so PUBLIC_URL and FRONTEND_URL can name the origin the app listens on. */

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The client's redirect target: records every query it receives. */
class Callback {
  readonly hits: URLSearchParams[] = [];
  private readonly server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') this.hits.push(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Client</title><p>Back at the client.</p>');
  });
  port = 0;

  async start() {
    this.port = await listen(this.server);
  }

  get uri() {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /** The query of the callback carrying this state. */
  byState(state: string): URLSearchParams {
    const hit = this.hits.find((query) => query.get('state') === state);
    assert.ok(hit, `the callback received state ${state}`);
    return hit;
  }

  close() {
    return new Promise((resolve) => this.server.close(resolve));
  }
}

describe('OAuth consent page (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let user: SignedInUser;
  let clientId: string;
  const callback = new Callback();
  const screenshots = mkdtempSync(join(tmpdir(), 'consent-screens-'));

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: origin, FRONTEND_URL: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    await callback.start();
    user = await registerUser(t.app, 'Consent Tester');

    const registered = await fetch(`${origin}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Trip Planner',
        client_description: 'Plans trips and books rooms for you.',
        client_logo_url: LOGO,
        client_homepage_url: 'https://planner.example.com/about',
        redirect_uris: [callback.uri],
      }),
    });
    assert.equal(registered.status, 201, await registered.clone().text());
    clientId = (await registered.json()).client_id;

    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await callback.close();
    await t?.close();
  });

  function authorizeUrl(state: string, challenge: string, client = clientId, redirectUri = callback.uri) {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    return `${origin}/api/oauth/authorize?${query}`;
  }

  /** A page that remembers console messages and script errors, to prove there were no CSP violations. */
  async function openPage(context: BrowserContext) {
    await context.route(LOGO, (route) => route.fulfill({ contentType: 'image/svg+xml', body: LOGO_SVG }));
    const page = await context.newPage();
    const problems = problemsOf(page);
    const logins: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/auth/login') logins.push(request.url());
    });
    return { page, problems, logins };
  }

  async function signInThroughForm(page: Page) {
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** A context whose cookie jar already holds a session, as after an earlier sign-in. */
  async function signedInContext(options: Parameters<Browser['newContext']>[0] = {}) {
    const context = await browser.newContext(options);
    const login = await context.request.post(`${origin}/api/auth/login`, {
      data: { email: user.email, password: user.password },
    });
    assert.equal(login.status(), 200);
    return context;
  }

  async function consentShown(page: Page) {
    await page.locator('#view-consent').waitFor({ state: 'visible' });
  }

  async function exchange(code: string, verifier: string) {
    const response = await fetch(`${origin}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: callback.uri,
        code_verifier: verifier,
      }),
    });
    return { status: response.status, body: await response.json() };
  }

  test('not signed in: sign in, see the client, approve; the code works with the verifier', async () => {
    const context = await browser.newContext();
    const { page, problems } = await openPage(context);
    const { verifier, challenge } = pkce();
    const state = `approve-${randomBytes(4).toString('hex')}`;

    const response = await page.goto(authorizeUrl(state, challenge));
    assert.equal(new URL(page.url()).pathname, '/oauth/consent');
    assert.equal(new URL(page.url()).searchParams.get('state'), state);
    assert.ok(response);
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    await checkAtBothWidths(page, 'consent sign-in');
    await signInThroughForm(page);
    await consentShown(page);

    assert.equal(
      await page.locator('#consent-title').textContent(),
      'Trip Planner wants to access your account',
    );
    assert.equal(
      await page.locator('#client-description').textContent(),
      'Plans trips and books rooms for you.',
    );
    assert.equal(await page.locator('#redirect-host').textContent(), `127.0.0.1:${callback.port}`);
    const homepage = page.locator('#client-homepage-link');
    assert.equal(await homepage.getAttribute('href'), 'https://planner.example.com/about');
    assert.equal(await homepage.getAttribute('rel'), 'noopener noreferrer');
    const logo = page.locator('#client-logo');
    await logo.waitFor({ state: 'visible' });
    assert.equal(await logo.getAttribute('alt'), 'Trip Planner logo');
    const radios = page.locator('input[name="permission-group"]');
    assert.ok((await radios.count()) >= 2);
    assert.equal(await radios.first().isChecked(), true);
    const firstGroup = await radios.first().inputValue();
    assert.ok((await page.locator('.group').first().locator('.highlights li').count()) > 0);
    assert.equal(await page.locator('#consent-title').evaluate((h) => h === document.activeElement), true);
    await checkAtBothWidths(page, 'consent');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    const query = callback.byState(state);
    const code = query.get('code');
    assert.ok(code);
    assert.equal(query.get('iss'), origin);
    assert.equal(query.get('error'), null);

    const token = await exchange(code, verifier);
    assert.equal(token.status, 200, JSON.stringify(token.body));
    assert.equal(token.body.token_type, 'Bearer');
    assert.equal(token.body.scope, firstGroup);
    assert.ok(token.body.access_token);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('deny sends the browser back with access_denied and the state', async () => {
    const context = await browser.newContext();
    const { page, problems } = await openPage(context);
    const state = `deny-${randomBytes(4).toString('hex')}`;
    await page.goto(authorizeUrl(state, pkce().challenge));
    await signInThroughForm(page);
    await consentShown(page);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    const query = callback.byState(state);
    assert.equal(query.get('error'), 'access_denied');
    assert.equal(query.get('code'), null);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('already signed in: no sign-in form, straight to the consent', async () => {
    const context = await signedInContext();
    const { page, problems, logins } = await openPage(context);
    const state = `session-${randomBytes(4).toString('hex')}`;
    await page.goto(authorizeUrl(state, pkce().challenge));
    await consentShown(page);
    assert.equal(await page.locator('#view-signin').isHidden(), true);
    assert.deepEqual(logins, []);
    assert.match(String(await page.locator('.account').textContent()), new RegExp(user.email));
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    assert.ok(callback.byState(state).get('code'));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('keyboard only: Tab to the groups, arrow to the next one, Enter on Approve', async () => {
    const context = await signedInContext();
    const { page, problems } = await openPage(context);
    const { verifier, challenge } = pkce();
    const state = `keys-${randomBytes(4).toString('hex')}`;
    await page.goto(authorizeUrl(state, challenge));
    await consentShown(page);

    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLInputElement | null;
        return {
          id: element?.id ?? '',
          name: element?.getAttribute('name') ?? '',
          value: element?.value ?? '',
        };
      });
    for (let i = 0; i < 10 && (await focused()).name !== 'permission-group'; i += 1)
      await page.keyboard.press('Tab');
    const first = await focused();
    assert.equal(first.name, 'permission-group', 'Tab reaches the group radios');
    await page.keyboard.press('ArrowDown');
    const second = await focused();
    assert.equal(second.name, 'permission-group');
    assert.notEqual(second.value, first.value);
    assert.equal(await page.locator(`#${second.id}`).isChecked(), true);
    // The focused radio is visibly marked.
    const outline = await page.evaluate(
      (id) => getComputedStyle(document.getElementById(id)!.closest('.group')!).outlineStyle,
      second.id,
    );
    assert.equal(outline, 'solid');

    for (let i = 0; i < 10 && (await focused()).id !== 'approve'; i += 1) await page.keyboard.press('Tab');
    assert.equal((await focused()).id, 'approve', 'Tab reaches Approve');
    const approveOutline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.equal(approveOutline, 'solid');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    const code = callback.byState(state).get('code');
    assert.ok(code);
    const token = await exchange(code, verifier);
    assert.equal(token.status, 200, JSON.stringify(token.body));
    assert.equal(token.body.scope, second.value, 'the group chosen with the keyboard is granted');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a phone-sized screen: no horizontal scroll; screenshots saved', async (t) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const { page, problems } = await openPage(context);
    await page.goto(authorizeUrl(`phone-${randomBytes(4).toString('hex')}`, pkce().challenge));
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    const noHorizontalScroll = () =>
      page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth);
    assert.equal(await noHorizontalScroll(), true, 'sign-in form fits');
    await page.screenshot({ path: join(screenshots, 'signin-360.png'), fullPage: true });

    await signInThroughForm(page);
    await consentShown(page);
    await page.locator('#client-logo').waitFor({ state: 'visible' });
    assert.equal(await noHorizontalScroll(), true, 'consent fits');
    const path = join(screenshots, 'consent-360.png');
    await page.screenshot({ path, fullPage: true });
    await page.screenshot({ path: join(screenshots, 'consent-360-viewport.png') });
    t.diagnostic(`screenshots in ${screenshots}`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the page and its assets carry the strict CSP; nothing is refused', async () => {
    const context = await signedInContext();
    const { page, problems } = await openPage(context);
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    const responses = new Map<string, Record<string, string>>();
    page.on('response', (response) => responses.set(new URL(response.url()).pathname, response.headers()));
    await page.goto(authorizeUrl(`csp-${randomBytes(4).toString('hex')}`, pkce().challenge));
    await consentShown(page);
    await page.evaluate(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        (window as unknown as { reportViolation(text: string): void }).reportViolation(
          `${event.violatedDirective} ${event.blockedURI}`,
        ),
      );
    });
    // The page is the web app: its scripts and style sheets (the page's own chunk among them) are
    // the app's hashed assets.
    const assets = [...responses.keys()].filter((path) => /^\/assets\/.+\.(js|css)$/.test(path));
    assert.ok(
      assets.some((path) => /\/ConsentPage-[^/]+\.js$/.test(path)),
      `the consent page's own script was loaded: ${assets.join(', ')}`,
    );
    assert.ok(
      assets.some((path) => path.endsWith('.css')),
      'a style sheet was loaded',
    );
    for (const path of ['/oauth/consent', ...assets]) {
      const headers = responses.get(path);
      assert.ok(headers, `${path} was loaded`);
      const csp = headers['content-security-policy'] ?? '';
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /script-src 'self'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(headers['x-frame-options'], 'DENY', path);
    }
    const html = responses.get('/oauth/consent')!;
    assert.equal(html['cache-control'], 'no-store');
    assert.equal(html['referrer-policy'], 'no-referrer');
    assert.match(html['content-type'] ?? '', /^text\/html/);
    // An injected inline script is refused by the policy: proof that it is enforced.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.body.append(script);
    });
    assert.equal(
      await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan),
      undefined,
    );
    await page.waitForTimeout(100);
    assert.ok(
      violations.some((text) => text.startsWith('script-src')),
      'the inline script was refused',
    );
    problems.splice(0, problems.length, ...problems.filter((text) => !/inline script/i.test(text)));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an unknown client or an unregistered redirect: a clear error, no redirect', async () => {
    const context = await signedInContext();
    const { page, problems } = await openPage(context);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const cases = [
      { name: 'unknown-client', client: 'no-such-client', redirect: callback.uri },
      { name: 'other-redirect', client: clientId, redirect: `http://127.0.0.1:${callback.port}/elsewhere` },
    ];
    for (const { name, client, redirect } of cases) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: client,
        redirect_uri: redirect,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        state: name,
      });
      await page.goto(`${origin}/oauth/consent?${query}`);
      await page.locator('#view-failure').waitFor({ state: 'visible' });
      const message = (await page.locator('#failure-message').textContent()) ?? '';
      assert.ok(message.length > 0, name);
      assert.equal(await page.locator('#view-consent').isHidden(), true, name);
      await checkAtBothWidths(page, `consent failure ${name}`);
      await page.screenshot({ path: join(screenshots, `failure-${name}.png`), fullPage: true });
      assert.equal(new URL(page.url()).pathname, '/oauth/consent', name);
    }
    assert.ok(!requests.some((url) => url.startsWith(`http://127.0.0.1:${callback.port}`)));
    assert.deepEqual(
      callback.hits.filter((hit) => ['unknown-client', 'other-redirect'].includes(hit.get('state') ?? '')),
      [],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('client-supplied text is shown as text, never as markup', async () => {
    const registered = await fetch(`${origin}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: '<img src=x id=injected> Evil',
        client_description: '<b id="bold">bold</b>',
        client_logo_url: 'http://insecure.example/logo.png',
        redirect_uris: [callback.uri],
      }),
    });
    assert.equal(registered.status, 201);
    const evilId = (await registered.json()).client_id as string;
    const context = await signedInContext();
    const { page, problems } = await openPage(context);
    await page.goto(authorizeUrl('evil', pkce().challenge, evilId));
    await consentShown(page);
    assert.equal(await page.locator('#client-name').textContent(), '<img src=x id=injected> Evil');
    assert.equal(await page.locator('#injected').count(), 0);
    assert.equal(await page.locator('#bold').count(), 0);
    // Only https or data: logos are shown.
    assert.equal(await page.locator('#client-logo').isHidden(), true);
    assert.equal(await page.locator('#client-logo').getAttribute('src'), null);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a wrong password is said in the alert, marks both fields and keeps the request', async () => {
    const context = await browser.newContext();
    const { page, problems } = await openPage(context);
    const state = `wrong-${randomBytes(4).toString('hex')}`;
    await page.goto(authorizeUrl(state, pkce().challenge));
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Enter your email address.').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'email');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Email or password is incorrect.').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'password');
    await checkAtBothWidths(page, 'consent sign-in refused');
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await consentShown(page);
    assert.equal(
      new URL(page.url()).searchParams.get('state'),
      state,
      'the OAuth request stays in the address',
    );
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    assert.equal(callback.byState(state).get('error'), 'access_denied');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('"Use another account" signs out here and at the service, and keeps the request', async () => {
    const context = await signedInContext();
    const { page, problems } = await openPage(context);
    const state = `switch-${randomBytes(4).toString('hex')}`;
    await page.goto(authorizeUrl(state, pkce().challenge));
    await consentShown(page);
    await page.getByRole('button', { name: 'Use another account' }).click();
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    await page.getByRole('status').getByText('Signed out. Sign in with another account.').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'email');
    // The session is gone at the service too: a reload asks for a sign-in again.
    await page.reload();
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).searchParams.get('state'), state);
    await signInThroughForm(page);
    await consentShown(page);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
