// The console's account screens in a real browser: profile (the branding seen on the booking
// page; the weekly schedule, a refused time on its field, then a good one; a resource's
// resolved schedule), the payment connection through the payment emulator, calendar provider
// A connected through its emulator and one of its calendars mapped, and the privacy centre
// (the export downloaded and read, the access report, a consent, a request refused on its
// field, sent and cancelled). axe-core at 360 and 1280 px on every screen, screenshots under
// test-artifacts/screenshots/. Run with `node scripts/run-browser-tests.mjs <this file>`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  type CalendarProviderAEmulator,
  startCalendarProviderAEmulator,
} from '../../tools/emulators/calendar-provider-a/server.js';
import { type PaymentEmulator, startPaymentEmulator } from '../../tools/emulators/payment/server.js';
import { createTestApp, freePort, type TestApp } from '../helpers/app.js';
import { checkAtBothWidths, launchChromium, problemsOf, registerThroughPages } from '../helpers/browser.js';

const SECRET = 'sk_test_console_account_browser_0123';
const WEBHOOK_SECRET = 'whsec_console_account_browser_0123456789';
const CALENDAR_ACCOUNT = 'owner@a.test';

/** The emulator's consent page on `localhost`: the way back to the service is cross-site, as with a real provider. */
function crossSite(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name,
      name.endsWith('_AUTH_URL') ? value.replace('//127.0.0.1:', '//localhost:') : value,
    ]),
  );
}

describe('console account screens (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let payments: PaymentEmulator;
  let calendarA: CalendarProviderAEmulator;
  let people = 0;

  before(async () => {
    payments = await startPaymentEmulator({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
    calendarA = await startCalendarProviderAEmulator({ accounts: [CALENDAR_ACCOUNT] });
    calendarA.createCalendar(CALENDAR_ACCOUNT, { summary: 'Work shifts', timeZone: 'Europe/Berlin' });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({
      ...crossSite(calendarA.env()),
      PUBLIC_URL: origin,
      FRONTEND_URL: origin,
      PAYMENT_API_BASE: payments.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENT_TIMEOUT_MS: '5000',
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    payments.setWebhookUrl(`${origin}/api/payments/webhooks`);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await payments?.close();
    await calendarA?.close();
  });

  /** A page that records script errors and CSP refusals. */
  async function openPage(context: BrowserContext) {
    const page = await context.newPage();
    const problems = problemsOf(page);
    return { page, problems };
  }

  /** A new person registered through the pages, with an organisation of their own (active, with a slug). */
  async function registerWithOrganisation(page: Page, name: string) {
    people += 1;
    const slug = `account-${process.pid}-${people}`;
    const { email, password } = await registerThroughPages(page, origin, {
      name,
      organisation: `${name}'s salon`,
      slug,
    });
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
    });
    const auth = { authorization: `Bearer ${login.json().accessToken}` };
    const orgs = (await t.app.inject({ method: 'GET', url: '/api/organisations', headers: auth })).json() as {
      id: number;
      isActiveOrganisation: boolean;
    }[];
    const organisationId = orgs.find((o) => o.isActiveOrganisation)!.id;
    return { email, password, slug, auth, organisationId, id: login.json().user.id as number };
  }

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();

  test('profile: branding seen on the booking page, the weekly schedule refused on its field then saved', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const { page, problems } = await openPage(context);
    const owner = await registerWithOrganisation(page, 'Paula Profile');

    await nav(page, 'Profile');
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    const person = page.locator('section', { has: page.getByRole('heading', { name: 'You' }) });
    await person.getByText(owner.email).waitFor();
    await person.getByText('Paula Profile').waitFor();

    // Branding: a colour that is no colour is refused on its field; then headline and colour saved.
    await page.getByLabel('Headline').fill('Cuts with a smile');
    await page.getByLabel('Colour (#rrggbb)').fill('purple');
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.locator('#e-color').waitFor();
    assert.match(String(await page.locator('#e-color').textContent()), /Enter a colour like #7c3aed/);
    assert.equal(await page.getByLabel('Colour (#rrggbb)').getAttribute('aria-invalid'), 'true');
    await checkAtBothWidths(page, 'console-branding-refused');
    await page.getByLabel('Colour (#rrggbb)').fill('#7C3AED');
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.getByText('Branding saved.').waitFor();
    assert.equal(await page.locator('#e-color').count(), 0);

    // The booking page shows the headline and wears the colour.
    await page.getByRole('link', { name: `/book/${owner.slug}` }).click();
    await page.getByRole('heading', { name: 'Cuts with a smile', level: 1 }).waitFor();
    const brand = await page.evaluate(() =>
      getComputedStyle(document.documentElement).getPropertyValue('--brand').trim(),
    );
    assert.equal(brand, '#7c3aed');

    // The weekly schedule: Monday closing before it opens is refused on Monday's closing time.
    await page.goto(`${origin}/app/profile`);
    await page.getByRole('heading', { name: 'Weekly schedule' }).waitFor();
    assert.equal(await page.getByLabel('Headline').inputValue(), 'Cuts with a smile');
    await page.getByLabel('Set opening hours (otherwise open all day, every day)').check();
    await page.getByLabel('Open on Saturday').check();
    await page.getByLabel('Saturday closes').fill('14:00');
    await page.getByLabel('Monday closes').fill('08:00');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    const mondayError = page.locator('[id="e-hours.1.closeTime"]');
    await mondayError.waitFor();
    assert.match(String(await mondayError.textContent()), /The closing time must be after the opening time/);
    assert.equal(await page.getByLabel('Monday closes').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Tuesday closes').getAttribute('aria-invalid'), null);
    await checkAtBothWidths(page, 'console-schedule-refused');
    await page.getByLabel('Monday closes').fill('18:00');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    assert.equal(await mondayError.count(), 0);
    const stored = (
      await t.app.inject({
        method: 'GET',
        url: `/api/organisations/${owner.organisationId}`,
        headers: owner.auth,
      })
    ).json();
    assert.deepEqual(
      stored.schedulePolicy.operatingHours.map(
        (d: { dayOfWeek: number; openTime: string; closeTime: string }) =>
          `${d.dayOfWeek} ${d.openTime}-${d.closeTime}`,
      ),
      ['1 09:00-18:00', '2 09:00-17:00', '3 09:00-17:00', '4 09:00-17:00', '5 09:00-17:00', '6 09:00-14:00'],
    );
    assert.equal(stored.schedulePolicy.availabilityMode, 'continuous');
    assert.equal(stored.color, '#7c3aed');

    // A resource follows the organisation's hours: its resolved schedule says so.
    const type = await t.app.inject({
      method: 'POST',
      url: '/api/resource-types',
      headers: owner.auth,
      payload: { name: 'Cut' },
    });
    assert.equal(type.statusCode, 201, type.body);
    const chair = await t.app.inject({
      method: 'POST',
      url: '/api/resources',
      headers: owner.auth,
      payload: { name: 'Chair 1', resourceTypeId: type.json().id },
    });
    assert.equal(chair.statusCode, 201, chair.body);
    await page.reload();
    const resolved = page.locator('section', {
      has: page.getByRole('heading', { name: "A resource's schedule" }),
    });
    await resolved.getByText('Opening hours (from the organisation).').waitFor();
    assert.match(
      String(await resolved.locator('dl').textContent()),
      /Monday09:00–18:00.*Saturday09:00–14:00.*SundayClosed/,
    );
    await checkAtBothWidths(page, 'console-profile');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('payments: connected through the provider emulator, then disconnected', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const { page, problems } = await openPage(context);
    const owner = await registerWithOrganisation(page, 'Petra Payments');

    await nav(page, 'Payments');
    await page.getByText('Not connected').waitFor();
    await page.getByText(/No payment account yet/).waitFor();
    await checkAtBothWidths(page, 'console-payments-none');

    // Off to the provider's onboarding, which completes at once and sends the browser back.
    await page.getByRole('button', { name: 'Connect a payment account' }).click();
    await page.waitForURL(/onboarding=complete/);
    await page.goto(`${origin}/app/payments`);
    const state = page.getByRole('heading', { name: /Payment account/ });
    await state.getByText('Connected').waitFor();
    const summary = page.locator('dl.summary');
    assert.match(String(await summary.textContent()), /Accountacct_.*Takes chargesyes.*Pays outyes/);
    const status = (
      await t.app.inject({
        method: 'GET',
        url: `/api/organisations/${owner.organisationId}/payment/status`,
        headers: owner.auth,
      })
    ).json();
    assert.equal(status.providerConnectStatus, 'active');
    assert.equal(
      await page.getByRole('button', { name: /Connect a payment account|Continue onboarding/ }).count(),
      0,
    );
    await checkAtBothWidths(page, 'console-payments-connected');

    // The provider's dashboard opens from here.
    await page.getByRole('button', { name: "Open the provider's dashboard" }).click();
    await page.waitForURL((url) => url.href.startsWith(payments.url) && url.pathname.endsWith('/dashboard'));
    await page.goBack();

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('heading', { name: 'Disconnect the payment account?' }).waitFor();
    await checkAtBothWidths(page, 'console-payments-disconnect');
    await page.getByRole('button', { name: 'Yes, disconnect' }).click();
    await page.getByText('The payment account is disconnected.').waitFor();
    await state.getByText('Not connected').waitFor();
    const after = (
      await t.app.inject({
        method: 'GET',
        url: `/api/organisations/${owner.organisationId}/payment/status`,
        headers: owner.auth,
      })
    ).json();
    assert.equal(after.providerConnectStatus, 'not_connected');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('calendar sync: provider A connected through its emulator, one of its calendars mapped', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const { page, problems } = await openPage(context);
    const person = await registerWithOrganisation(page, 'Cora Calendar');

    await nav(page, 'Calendar sync');
    const providerA = page.locator('.provider', {
      has: page.getByRole('heading', { name: /Calendar provider A/ }),
    });
    await providerA.getByText('Not connected').waitFor();
    await checkAtBothWidths(page, 'console-calendar-sync-none');

    // To the provider (on localhost), approved at once, back through the callback to the landing page.
    await providerA.getByRole('button', { name: 'Connect Calendar provider A' }).click();
    await page.locator('#result.ok').waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).pathname, '/calendar-sync');

    await page.goto(`${origin}/app/calendar-sync`);
    await providerA.getByText('Connected', { exact: true }).waitFor();
    await providerA.getByLabel('Sync Work shifts').check();
    await providerA.getByLabel('Local calendar for Work shifts').fill('');
    await providerA.getByRole('button', { name: 'Save calendars' }).click();
    // An empty local name is refused on its field.
    const nameError = providerA.locator(
      '[id="e-calendar_provider_a.1.localName"], [id="e-calendar_provider_a.0.localName"]',
    );
    await nameError.waitFor();
    await checkAtBothWidths(page, 'console-calendar-sync-refused');
    await providerA.getByLabel('Local calendar for Work shifts').fill('Shifts (A)');
    await providerA.getByLabel('Send changes made here back to Work shifts').uncheck();
    await providerA.getByRole('button', { name: 'Save calendars' }).click();
    const synced = providerA.locator('.synced li', { hasText: 'Shifts (A)' });
    await synced.waitFor();
    assert.match(String(await synced.textContent()), /from the provider only/);
    const status = (
      await t.app.inject({ method: 'GET', url: '/api/calendar-sync/status', headers: person.auth })
    ).json();
    const a = status.providers.find((p: { provider: string }) => p.provider === 'calendar_provider_a');
    assert.equal(a.isConnected, true);
    assert.deepEqual(
      a.syncedCalendars.map((c: { localName: string; bidirectionalSync: boolean }) => [
        c.localName,
        c.bidirectionalSync,
      ]),
      [['Shifts (A)', false]],
    );
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /queued|sync/i })
      .first()
      .waitFor();
    await checkAtBothWidths(page, 'console-calendar-sync');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('privacy: the export downloaded names the person, the access report, a consent, a request', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-GB',
      acceptDownloads: true,
    });
    const { page, problems } = await openPage(context);
    const person = await registerWithOrganisation(page, 'Pia Privacy');

    await nav(page, 'Privacy');
    await page.getByRole('heading', { name: 'What the service holds about you' }).waitFor();
    const categories = page.locator('.access-categories li');
    await categories.first().waitFor();
    assert.ok((await categories.count()) > 0, 'the report lists what is held');
    await page.getByText('No agents or connected apps can act for you.').waitFor();
    await page.getByText('No requests yet.').waitFor();
    await checkAtBothWidths(page, 'console-privacy');

    // The export: a JSON file naming this person.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download my data' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^privacy-export-\d+-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync(String(await download.path()), 'utf8'));
    assert.equal(exported.userId, person.id);
    const text = JSON.stringify(exported.data);
    assert.ok(text.includes(person.email), 'the export has the email address');
    assert.ok(text.includes('Pia Privacy'), 'the export has the name');
    await page.getByText(/^Downloaded privacy-export-/).waitFor();

    // A consent given, in the list and its history.
    await page.getByRole('button', { name: 'Give consent: Marketing email' }).click();
    await page.getByRole('button', { name: 'Withdraw consent: Marketing email' }).waitFor();
    await page.locator('.history li', { hasText: 'Marketing email given' }).waitFor();
    const consents = (
      await t.app.inject({ method: 'GET', url: '/api/compliance/me/privacy/consents', headers: person.auth })
    ).json();
    assert.deepEqual(
      consents.map((c: { consentType: string; decision: string }) => `${c.consentType} ${c.decision}`),
      ['marketing_email accepted'],
    );

    // A request with someone else's address is refused on that field; with their own it is sent, then cancelled.
    await page.getByLabel('What you ask for').selectOption('export');
    await page.getByLabel("Your account's email, to confirm (optional)").fill('someone.else@example.test');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.locator('#e-confirmEmail').waitFor();
    assert.match(
      String(await page.locator('#e-confirmEmail').textContent()),
      /not your account's email address/,
    );
    await checkAtBothWidths(page, 'console-privacy-refused');
    await page.getByLabel("Your account's email, to confirm (optional)").fill(person.email);
    await page.getByRole('button', { name: 'Send request' }).click();
    const request = page.locator('.requests li', { hasText: 'My data in a portable file (export)' });
    await request.getByText('waiting').waitFor();
    await request.getByRole('button', { name: /^Cancel request \d+$/ }).click();
    await request.getByText('cancelled').waitFor();
    assert.equal(await request.getByRole('button').count(), 0);
    await checkAtBothWidths(page, 'console-privacy-request');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
