// What every browser test shares (test/browser/*.browser.ts): Chromium, the app under test
// listening with the pages built (and, asked for, the payment emulator), visitors whose requests
// stay on the app, and the check of each page at a phone's and a desktop's width.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Frame,
  type Locator,
  type Page,
} from 'playwright-core';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { type PaymentEmulator, startPaymentEmulator } from '../../tools/emulators/payment/server.js';
import { createTestApp, freePort, type TestApp, uniqueEmail } from './app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Debian's headless Chromium, never a downloaded one; the flags keep it off the network
 * (background services, updates, sync), which this machine refuses anyway.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where the pages' screenshots go (kept as CI artifacts; the README names the folder). */
export const SCREENSHOTS = join(PROJECT_ROOT, 'test-artifacts', 'screenshots');

/** No serious or critical axe violation on the page as it is now. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    what,
  );
}

/**
 * The page at 360 and 1280 px: no serious or critical axe violation, no sideways scrolling,
 * and a screenshot `<name>-<width>.png` under SCREENSHOTS; the viewport is left at 1280 px.
 */
export async function checkAtBothWidths(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await assertAccessible(page, `${name} at ${width} px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at ${width} px: no sideways scrolling (${overflow} px too wide)`);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * The booking picker's offered times (`button.time`) once its chosen day offers more than
 * `index`: the first free day can be today with only its last hour left, so the picker is
 * moved on through the free days (and months) until one does. Answers the times' locator.
 */
export async function dayOfferingTime(page: Page | Frame, index: number): Promise<Locator> {
  const times = page.locator('button.time');
  await times.first().waitFor();
  for (let attempt = 0; (await times.count()) <= index; attempt++) {
    assert.ok(attempt < 10, `a day with ${index + 1} free times`);
    const days = page.getByRole('button', { name: /, free times$/ });
    const pressed = await days.evaluateAll((all) =>
      all.findIndex((d) => d.getAttribute('aria-pressed') === 'true'),
    );
    if (pressed + 1 < (await days.count())) await days.nth(pressed + 1).click();
    else await page.getByRole('button', { name: 'Next month' }).click();
    await times.first().waitFor();
  }
  return times;
}

/**
 * What went wrong on `page` while a test drove it: script errors, CSP refusals and console
 * errors. The browser logs every 4xx answer as a console error; a refusal the page handles
 * in words is not a problem.
 */
export function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    const refusal = /^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text());
    if ((m.type() === 'error' && !refusal) || /content security policy|refused to/i.test(m.text()))
      problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}

/**
 * A new person registered through the console's pages, with an organisation of their own made
 * there (active; with `slug`, a booking page address too). Answers the credentials.
 */
export async function registerThroughPages(
  page: Page,
  origin: string,
  person: { name: string; organisation: string; slug?: string },
): Promise<{ email: string; password: string }> {
  const email = uniqueEmail('browser');
  const password = 'a long enough password';
  await page.goto(`${origin}/app/register`);
  await page.getByLabel('Your name').fill(person.name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill(person.organisation);
  if (person.slug) await page.getByLabel(/^Booking page address/).fill(person.slug);
  await page.getByRole('button', { name: 'Create organisation' }).click();
  await page.locator('.org-list li', { hasText: person.organisation }).getByText('Active').waitFor();
  return { email, password };
}

/** Open 09:00-17:00 on every day of the week: a type's `operatingHours`. */
export const NINE_TO_FIVE = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
  dayOfWeek,
  openTime: '09:00',
  closeTime: '17:00',
}));

/** A browser test's direct call of the API: the answer read loosely, a refusal fails the test. */
// biome-ignore lint/suspicious/noExplicitAny: the API's answers are read loosely here
export type LooseApi = (method: string, path: string, body?: unknown) => Promise<any>;

/** The API as `person` (signed in with their password), for a browser test's setup and checks. */
export async function signedInApi(
  origin: string,
  person: { email: string; password: string },
): Promise<LooseApi> {
  const login = await fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(person),
  });
  const headers = {
    authorization: `Bearer ${(await login.json()).accessToken}`,
    'content-type': 'application/json',
  };
  return async (method, path, body) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
    return response.json();
  };
}

/** A listening app with the pages built, and Chromium: what a browser test's `before` starts. */
export interface BrowserApp {
  t: TestApp;
  /** The pages' origin, also the app's PUBLIC_URL and FRONTEND_URL. */
  origin: string;
  /** The app's address on 127.0.0.1 (the origin too, unless the origin is on localhost). */
  loopback: string;
  browser: Browser;
  /** The payment emulator, when asked for: the app pays through it, its webhooks come back. */
  payments?: PaymentEmulator;
  close: () => Promise<void>;
}

export interface BrowserAppOptions {
  /** Start the payment emulator and point the app at it. */
  payments?: boolean;
  /** The origin's host name: `localhost` makes 127.0.0.1 another name a visitor may type. */
  host?: '127.0.0.1' | 'localhost';
}

/** The payment emulator's keys of every browser test (the emulator and the app share them). */
const PAYMENT_SECRET = 'sk_test_browser_0123456789';
const PAYMENT_WEBHOOK_SECRET = 'whsec_browser_0123456789abcdef';

/**
 * Starts an app listening on a free loopback port with
 * `env` over the test settings (and the payment emulator, asked for), launches Chromium. The
 * pages are built by the runner (scripts/run-browser-tests.mjs) when they are not.
 */
export async function startBrowserApp(
  env: Record<string, string> = {},
  { payments: withPayments = false, host = '127.0.0.1' }: BrowserAppOptions = {},
): Promise<BrowserApp> {
  const payments = withPayments
    ? await startPaymentEmulator({ secretKey: PAYMENT_SECRET, webhookSecret: PAYMENT_WEBHOOK_SECRET })
    : undefined;
  const port = await freePort();
  const origin = `http://${host}:${port}`;
  const loopback = `http://127.0.0.1:${port}`;
  const t = await createTestApp({
    PUBLIC_URL: origin,
    FRONTEND_URL: origin,
    ...(payments && {
      PAYMENT_API_BASE: payments.url,
      PAYMENT_SECRET_KEY: PAYMENT_SECRET,
      PAYMENT_WEBHOOK_SECRET: PAYMENT_WEBHOOK_SECRET,
      PAYMENT_TIMEOUT_MS: '5000',
    }),
    ...env,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  payments?.setWebhookUrl(`${loopback}/api/payments/webhooks`);
  const browser = await launchChromium();
  return {
    t,
    origin,
    loopback,
    browser,
    ...(payments && { payments }),
    close: async () => {
      await browser.close();
      await t.close();
      await payments?.close();
    },
  };
}

export interface VisitorOptions
  extends Pick<BrowserContextOptions, 'timezoneId' | 'locale' | 'acceptDownloads'> {
  viewport?: { width: number; height: number };
  /** Third-party URLs answered with this content instead (a logo the organisation links). */
  stubs?: Record<string, { contentType: string; body: string }>;
}

/** A visitor of the app's pages in a browser context of their own, and what went wrong for them. */
export interface Visitor {
  context: BrowserContext;
  page: Page;
  /** Requests the pages made anywhere but the app (or the payment emulator): refused. */
  foreign: string[];
  /** See problemsOf. */
  problems: string[];
}

/**
 * A visitor (1280 by 800 px unless said) whose requests anywhere but the app (on either of its
 * names) and the payment emulator are refused and recorded: the pages make no third-party requests.
 */
export async function openVisitor(
  app: BrowserApp,
  { viewport = { width: 1280, height: 800 }, stubs = {}, ...options }: VisitorOptions = {},
): Promise<Visitor> {
  const context = await app.browser.newContext({ viewport, ...options });
  const allowed = [app.origin, app.loopback, ...(app.payments ? [app.payments.url] : []), 'data:'];
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    const stub = stubs[url];
    if (stub) return route.fulfill(stub);
    if (allowed.some((start) => url.startsWith(start))) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  return { context, page, foreign, problems: problemsOf(page) };
}
