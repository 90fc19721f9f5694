// The console's daily pages in a real browser: a person with no organisation sees only its
// creation and their account's screens; with one, each tab names its screen and organisation;
// the week's buttons read as words; a walk-in is booked from the console; the upcoming, past
// and cancelled lists filter and search by customer or reference; each type offers its booking
// link to copy, or says why it is not bookable with the way to fix it; the currency is the
// organisation's everywhere; a new agent key shows the MCP address; the approval page names
// the agent and the customer. axe-core at 360 and 1280 px. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addDays } from '../../frontend/src/console/week.js';
import { dayKey, instantOf } from '../../frontend/src/lib/time.js';
import { createTestApp, freePort, type TestApp, uniqueEmail } from '../helpers/app.js';
import { checkAtBothWidths, launchChromium, problemsOf } from '../helpers/browser.js';

const ZONE = 'Europe/Berlin';
const SLUG = `salon-daily-${process.pid}`;

describe('console daily pages (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const email = uniqueEmail('daily');
  const password = 'a long enough password';
  // biome-ignore lint/suspicious/noExplicitAny: the API's answers are read loosely here
  let api: (method: string, path: string, body?: unknown) => Promise<any>;
  const tomorrow = () => addDays(dayKey(Date.now(), ZONE), 1);
  const at = (day: string, hhmm: string) => instantOf(`${day}T${hhmm}`, ZONE)!;
  const nav = () => page.getByRole('navigation', { name: 'Console' });
  /** The tab's title, once the screen has set it (it renders after the page loads). */
  async function expectTitle(title: string) {
    await page.waitForFunction((want) => document.title === want, title, { timeout: 5000 }).catch(() => {});
    assert.equal(await page.title(), title);
  }

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: origin, FRONTEND_URL: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: ZONE,
      locale: 'en-GB',
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
    problems = problemsOf(page);
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  test('no organisation: only its creation and the account; then titled screens for the organisation', async () => {
    await page.goto(`${origin}/app/register`);
    await expectTitle('Create an account · Console');
    await page.getByLabel('Your name').fill('Ute Owner');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('You do not belong to an organisation yet.').waitFor();
    assert.deepEqual(await nav().getByRole('link').allTextContents(), [
      'Organisations',
      'Profile',
      'Invitations',
      'Security',
    ]);
    await expectTitle('Organisations · Console');
    // A screen of an organisation's is not there before one exists: back to its creation.
    await page.goto(`${origin}/app/reservations`);
    await page.getByText('You do not belong to an organisation yet.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/app');
    await checkAtBothWidths(page, 'console-daily-no-organisation');

    await page.getByLabel('Name', { exact: true }).fill('Salon Ute');
    await page.getByLabel(/^Booking page address/).fill(SLUG);
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.locator('.org-list li', { hasText: 'Salon Ute' }).getByText('Active').waitFor();
    await nav().getByRole('link', { name: 'Reservations' }).waitFor();
    await expectTitle('Organisations · Salon Ute · Console');
    await nav().getByRole('link', { name: 'Members' }).click();
    await page
      .getByRole('heading', { name: /Members/ })
      .first()
      .waitFor();
    await expectTitle('Members · Salon Ute · Console');

    const session = await (
      await fetch(`${origin}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
    ).json();
    const auth = { authorization: `Bearer ${session.accessToken}`, 'content-type': 'application/json' };
    api = async (method, path, body) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: auth,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.ok(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
      return response.json();
    };
  });

  test('week buttons in words, a walk-in booked from the console, lists that filter and search', async () => {
    const cut = await api('POST', '/api/resource-types', { name: 'Haircut', minBookingDuration: 30 });
    const chair = await api('POST', '/api/resources', { name: 'Chair 1', resourceTypeId: cut.id });
    const book = (hhmm: string, name: string) =>
      api('POST', '/api/reservations', {
        resourceId: chair.id,
        startTime: at(tomorrow(), hhmm),
        endTime: at(tomorrow(), hhmm.replace(':00', ':30')),
        customer: { name, email: uniqueEmail(name.split(' ')[0]!.toLowerCase()) },
      });
    const ada = await book('14:00', 'Ada Lovelace');
    const carl = await book('15:00', 'Carl Cancelled');
    await api('POST', `/api/reservations/${carl.id}/cancel`, {});

    await nav().getByRole('link', { name: 'Reservations' }).click();
    await page.getByRole('heading', { name: 'Reservations', level: 1 }).waitFor();
    await expectTitle('Reservations · Salon Ute · Console');
    const previous = page.getByRole('button', { name: 'Previous week' });
    const next = page.getByRole('button', { name: 'Next week' });
    for (const button of [previous, next]) {
      const text = String(await button.textContent());
      assert.doesNotMatch(text, /\\u|u00a0/, `no escape text on "${text}"`);
      assert.match(text, /[‹›]/);
    }
    // Today: back to this week from another one.
    const heading = page.locator('#week-heading');
    const thisWeek = await heading.textContent();
    const today = page.getByRole('button', { name: 'Today' });
    assert.equal(await today.getAttribute('aria-pressed'), 'true');
    await next.click();
    await page.waitForFunction(
      (was) => document.querySelector('#week-heading')?.textContent !== was,
      thisWeek,
    );
    assert.equal(await today.getAttribute('aria-pressed'), 'false');
    await today.click();
    await page.waitForFunction(
      (was) => document.querySelector('#week-heading')?.textContent === was,
      thisWeek,
    );
    // Tomorrow is a Monday when today is a Sunday: the booking is in the next week then.
    if (new Date(`${tomorrow()}T00:00:00Z`).getUTCDay() === 1) {
      await next.click();
      await page.waitForFunction(
        (was) => document.querySelector('#week-heading')?.textContent !== was,
        thisWeek,
      );
    }
    await page.locator('.week .booking', { hasText: 'Ada Lovelace' }).waitFor();
    assert.match(
      String(await page.locator('.week .booking', { hasText: 'Ada Lovelace' }).textContent()),
      new RegExp(ada.reference),
    );
    await checkAtBothWidths(page, 'console-daily-week');

    // A walk-in: the type, its chair, tomorrow's first free time, the customer at the desk.
    await page.getByRole('link', { name: 'New booking' }).click();
    await page.getByRole('heading', { name: 'New booking' }).waitFor();
    await expectTitle('Reservations · Salon Ute · Console');
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Haircut' });
    await page.getByLabel('Resource', { exact: true }).selectOption({ label: 'Chair 1' });
    await page.getByLabel('Day', { exact: true }).fill(tomorrow());
    const time = page.getByLabel('Time', { exact: true });
    await page.locator('#f-startTime option:not([value=""])').first().waitFor({ state: 'attached' });
    const firstFree = await page.locator('#f-startTime option:not([value=""])').first().getAttribute('value');
    await time.selectOption(String(firstFree));
    await page.getByLabel('Name', { exact: true }).fill('Walter Walkin');
    await page.getByLabel('Email', { exact: true }).fill('walter@example.test');
    await page.getByLabel('Phone (optional)').fill('+49 30 555 0101');
    await page.getByLabel('Notes (optional)').fill('Came in at the desk');
    await checkAtBothWidths(page, 'console-daily-new-booking');
    await page.getByRole('button', { name: 'Book it' }).click();
    await page.getByRole('heading', { name: /^Reservation [A-Z0-9]{8}$/ }).waitFor();
    await page.getByText('Booked. The customer is told by email.').waitFor();
    const reference = String(await page.locator('#reservation-reference').textContent());
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    const walkIn = await api('GET', `/api/reservations/${id}`);
    assert.equal(walkIn.reference, reference);
    assert.equal(walkIn.startTime, new Date(String(firstFree)).toISOString());
    assert.deepEqual(
      [walkIn.status, walkIn.source, walkIn.customer.name, walkIn.customer.phone, walkIn.notes],
      ['confirmed', 'api', 'Walter Walkin', '+49 30 555 0101', 'Came in at the desk'],
    );

    // Upcoming: both live ones, not the cancelled one; a search by name, then by reference.
    await page.getByRole('link', { name: 'Back to the week' }).click();
    const views = page.getByRole('navigation', { name: 'Reservation views' });
    await views.getByRole('link', { name: 'Upcoming' }).click();
    const rows = page.locator('.reservation-list li');
    await page.locator('.reservation-list li', { hasText: 'Walter Walkin' }).waitFor();
    assert.deepEqual((await rows.allTextContents()).map((r) => /Ada|Walter|Carl/.exec(r)?.[0]).sort(), [
      'Ada',
      'Walter',
    ]);
    assert.match(String(await rows.filter({ hasText: 'Ada' }).textContent()), new RegExp(ada.reference));
    await checkAtBothWidths(page, 'console-daily-upcoming');
    const search = page.getByLabel('Customer name, email or reference');
    await search.fill('lovelace');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('.reservation-list li').length === 1);
    assert.match(String(await rows.first().textContent()), /Ada Lovelace/);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'lovelace');
    await search.fill(reference.toLowerCase());
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.reservation-list li', { hasText: 'Walter Walkin' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.reservation-list li').length === 1);
    await page.getByRole('button', { name: 'Clear the search' }).click();

    // Cancelled: only Carl; past: nothing yet.
    await views.getByRole('link', { name: 'Cancelled' }).click();
    await page.locator('.reservation-list li', { hasText: 'Carl Cancelled' }).waitFor();
    assert.equal(await rows.count(), 1);
    assert.match(String(await rows.first().textContent()), new RegExp(carl.reference));
    await views.getByRole('link', { name: 'Past' }).click();
    await page.getByRole('heading', { name: /^Past/ }).waitFor();
    await page.getByText('None.').waitFor();
    assert.deepEqual(problems, []);
  });

  test('types: the booking link to copy, why one is not bookable and the fix; one currency', async () => {
    const paid = await api('POST', '/api/resource-types', {
      name: 'Colouring',
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 4000,
    });
    const closed = await api('POST', '/api/resource-types', { name: 'Beard trim' });
    await api('PATCH', `/api/resource-types/${closed.id}`, { isActive: false });
    const types = await api('GET', '/api/resource-types');
    const haircut = types.find((x: { name: string }) => x.name === 'Haircut');

    await nav().getByRole('link', { name: 'Types' }).click();
    await page.getByRole('heading', { name: 'Types' }).waitFor();
    await expectTitle('Types · Salon Ute · Console');
    const paidRow = page.locator(`#not-bookable-${paid.id}`);
    await paidRow.waitFor();
    assert.match(
      String(await paidRow.textContent()),
      /Colouring takes payment, and Salon Ute cannot take payments yet/,
    );
    assert.equal(
      await paidRow.getByRole('link', { name: 'Set up payments' }).getAttribute('href'),
      '/app/payments',
    );
    const closedRow = page.locator(`#not-bookable-${closed.id}`);
    assert.match(String(await closedRow.textContent()), /Beard trim is turned off/);
    assert.equal(await page.locator(`#booking-link-${closed.id}`).count(), 0);
    await checkAtBothWidths(page, 'console-daily-types');

    // The fix for a type turned off: turn it on; it then has its link too.
    await closedRow.getByRole('button', { name: 'Turn Beard trim on' }).click();
    await page.locator(`#booking-link-${closed.id}`).waitFor();
    assert.equal((await api('GET', `/api/resource-types/${closed.id}`)).bookable, true);

    const link = `${origin}/book/${SLUG}?type=${haircut.id}`;
    assert.equal(await page.locator(`#booking-link-${haircut.id}`).textContent(), link);
    await page.getByRole('button', { name: 'Copy the link to Haircut' }).click();
    await page.locator(`li[data-type="${haircut.id}"]`).getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);

    // The organisation's currency, set on Payments, is what a new type's price starts in.
    await nav().getByRole('link', { name: 'Payments' }).click();
    const currency = page.getByLabel('Currency (three letters, e.g. EUR)');
    assert.equal(await currency.inputValue(), 'USD');
    await currency.fill('eur');
    await page.getByRole('button', { name: 'Save the currency' }).click();
    await page.getByText('Saved: Salon Ute counts in EUR.').waitFor();
    await checkAtBothWidths(page, 'console-daily-currency');
    await nav().getByRole('link', { name: 'Types' }).click();
    await page.getByRole('link', { name: 'New type' }).click();
    await page.getByLabel('This type has a price').check();
    assert.equal(await page.getByLabel('Currency (e.g. EUR)').inputValue(), 'EUR');
    assert.deepEqual(problems, []);
  });

  test('a new agent key shows the MCP address; the approval page names the agent and the customer', async () => {
    const agent = await api('POST', '/api/agents', {
      name: 'Front desk bot',
      permissionGroupId: 'reservations_operator',
    });
    await api('PUT', `/api/agents/${agent.id}/policy`, { requireApproval: 'writes' });
    await page.goto(`${origin}/app/agents/${agent.id}`);
    await page.getByRole('heading', { name: 'Front desk bot' }).waitFor();
    await expectTitle('Agents · Salon Ute · Console');
    // The policy's amounts count in the organisation's currency, as the types' prices do.
    await page.getByLabel('Also ask when a call costs more than (EUR)').waitFor();
    await page.getByLabel("New key's label").fill('desk tablet');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = String(await page.locator('#agent-key').textContent());
    assert.equal(await page.locator('#mcp-url').textContent(), `${origin}/api/mcp`);
    await page.getByRole('button', { name: 'Copy MCP address' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${origin}/api/mcp`);
    await checkAtBothWidths(page, 'console-daily-agent-key');

    const chair = (await api('GET', '/api/resources'))[0];
    const asked = await fetch(`${origin}/api/mcp/execute`, {
      method: 'POST',
      headers: { 'x-agent-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        action: 'reservations.create',
        input: {
          resourceId: chair.id,
          startTime: at(addDays(tomorrow(), 1), '10:00'),
          endTime: at(addDays(tomorrow(), 1), '10:30'),
          customer: { name: 'Grace Hopper', email: 'grace@example.test' },
        },
      }),
    });
    const { approval } = (await asked.json()).result;
    await page.goto(approval.approveUrl);
    await page.locator('#view-signin, #view-approval').first().waitFor();
    if (await page.locator('#view-signin').isVisible()) {
      await page.locator('#email').fill(email);
      await page.locator('#password').fill(password);
      await page.locator('#signin-button').click();
    }
    await page.locator('#view-approval').waitFor();
    assert.match(
      String(await page.locator('#approval-title').textContent()),
      /^Front desk bot asks to: Book Chair 1, /,
    );
    assert.equal(await page.locator('#approval-agent').textContent(), 'Front desk bot');
    assert.equal(await page.locator('#approval-customer').textContent(), 'Grace Hopper · grace@example.test');
    assert.equal(await page.locator('#approval-action').textContent(), 'reservations_create');
    const call = String(await page.locator('#approval-call').textContent());
    for (const expected of ['Resource id', 'Start time', 'Customer name', 'Grace Hopper', 'Customer email'])
      assert.ok(call.includes(expected), `the call names ${expected}: ${call}`);
    await expectTitle('Approve Front desk bot’s request · Reservation Service');
    await checkAtBothWidths(page, 'console-daily-approval');
    assert.deepEqual(problems, []);
  });
});
