// The calendar-sync landing page in a real browser (the system Chromium through playwright-core):
// the page starts the connect itself, so the binding cookie lands in the browser the provider
// sends back, across a cross-site redirect through the provider emulators. Run with
// `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import {
  type CalendarProviderAEmulator,
  startCalendarProviderAEmulator,
} from '../../tools/emulators/calendar-provider-a/server.js';
import {
  type CalendarProviderBEmulator,
  startCalendarProviderBEmulator,
} from '../../tools/emulators/calendar-provider-b/server.js';
import { createTestApp, freePort, registerUser, type SignedInUser, type TestApp } from '../helpers/app.js';
import { checkAtBothWidths, launchChromium, problemsOf } from '../helpers/browser.js';

/**
 * The emulators' settings with their consent pages on `localhost`, so the way back from the
 * provider to the service (on 127.0.0.1) is a cross-site redirect, as with a real provider.
 */
function crossSite(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name,
      name.endsWith('_AUTH_URL') ? value.replace('//127.0.0.1:', '//localhost:') : value,
    ]),
  );
}

describe('calendar-sync landing page (browser)', () => {
  let t: TestApp;
  let a: CalendarProviderAEmulator;
  let b: CalendarProviderBEmulator;
  let origin: string;
  let browser: Browser;

  before(async () => {
    a = await startCalendarProviderAEmulator({ accounts: ['alice@a.test', 'mallory@a.test'] });
    b = await startCalendarProviderBEmulator({ accounts: ['alice@b.test'] });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({
      ...crossSite(a.env()),
      ...crossSite(b.env()),
      PUBLIC_URL: origin,
      FRONTEND_URL: origin,
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await a?.close();
    await b?.close();
  });

  /** A page that remembers CSP violations and script errors. */
  async function openPage(context: BrowserContext) {
    const page = await context.newPage();
    const problems = problemsOf(page);
    return { page, problems };
  }

  async function isConnected(user: SignedInUser, provider: string) {
    const r = await t.app.inject({ method: 'GET', url: '/api/calendar-sync/status', headers: user.auth });
    return r.json().providers.find((p: { provider: string }) => p.provider === provider)
      .isConnected as boolean;
  }

  test('?connect= signs the person in, starts the connect in this browser, and it completes', async () => {
    const user = await registerUser(t.app, 'Landing Tester');
    const context = await browser.newContext();
    const { page, problems } = await openPage(context);
    await page.goto(`${origin}/calendar-sync?connect=calendar_provider_a`);
    await page.locator('#view-signin').waitFor({ state: 'visible' });
    await checkAtBothWidths(page, 'calendar-sync sign-in');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Off to the provider (localhost), approved at once, back to the callback, then the landing page.
    await page.locator('#result.ok').waitFor({ state: 'visible' });
    assert.equal(
      await page.locator('#result').textContent(),
      'Calendar provider A is connected. Choose which calendars to sync.',
    );
    assert.equal(new URL(page.url()).pathname, '/calendar-sync');
    assert.equal(await isConnected(user, 'calendar_provider_a'), true);
    // The spent binding is gone from the browser.
    const cookies = await context.cookies(`${origin}/api/calendar-sync/callback/calendar_provider_a`);
    assert.equal(
      cookies.find((c) => c.name === 'calendar_sync_binding'),
      undefined,
    );

    // The Connect button does the same for the other provider (the session lives in the cookie).
    await page.locator('#view-status').waitFor({ state: 'visible' });
    // The outcome is shown once: the address bar no longer carries it.
    assert.equal(new URL(page.url()).search, '');
    const providerA = page.locator('.provider', { hasText: 'Calendar provider A' });
    assert.equal(await providerA.locator('.state').textContent(), 'Connected');
    await checkAtBothWidths(page, 'calendar-sync connected');
    const providerB = page.locator('.provider', { hasText: 'Calendar provider B' });
    await providerB.getByRole('button', { name: 'Connect' }).click();
    await page.locator('#result', { hasText: 'Calendar provider B is connected' }).waitFor();
    assert.equal(await isConnected(user, 'calendar_provider_b'), true);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a consent link made for someone else connects nothing in this browser', async () => {
    const attacker = await registerUser(t.app, 'Mallory');
    const auth = await t.app.inject({
      method: 'GET',
      url: '/api/calendar-sync/auth/calendar_provider_a',
      headers: attacker.auth,
    });
    assert.equal(auth.statusCode, 200, auth.body);
    const context = await browser.newContext();
    const { page, problems } = await openPage(context);
    await page.goto(auth.json().authUrl);
    await page.locator('#result.error').waitFor({ state: 'visible' });
    assert.match((await page.locator('#result').textContent()) ?? '', /not started in this browser/);
    assert.equal(await isConnected(attacker, 'calendar_provider_a'), false);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
