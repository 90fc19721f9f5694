// The console's screens (/app) in a real browser: a person registers, creates an organisation
// (Berlin time), a type (its rules refused on their field first, then edited) and a resource
// they manage; two bookings come in through the API; the week view shows them on their day in
// the organisation's zone; the detail moves one onto a refused time, takes an alternative
// offered as a button, and cancels it. axe-core at 360 and 1280 px on every screen, screenshots
// under test-artifacts/screenshots/. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { addDays, mondayOf } from '../../frontend/src/console/week.js';
import { dayKey, formatDay, instantOf } from '../../frontend/src/lib/time.js';
import { createTestApp, freePort, registerVerifiedUser, type TestApp, uniqueEmail } from '../helpers/app.js';
import { checkAtBothWidths, launchChromium, problemsOf, registerThroughPages } from '../helpers/browser.js';
import { type Receiver, startReceiver } from '../modules/webhooks/helpers.js';

const ZONE = 'Europe/Berlin';

describe('console screens (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let receiver: Receiver;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // Webhook endpoints on loopback: the receiver below.
    t = await createTestApp({ PUBLIC_URL: origin, FRONTEND_URL: origin, WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  after(async () => {
    await receiver?.close();
    await browser?.close();
    await t?.close();
  });

  test('types, resources, the week view and a reservation moved and cancelled from its detail', async () => {
    // The browser lives in Berlin and reads British English (24-hour times), so the new organisation does too (the form's default zone).
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: ZONE,
      locale: 'en-GB',
    });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const email = uniqueEmail('screens');
    const password = 'a long enough password';

    await page.goto(`${origin}/app/register`);
    await page.getByLabel('Your name').fill('Ute Owner');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Salon Ute');
    assert.equal(await page.getByLabel('Time zone').inputValue(), ZONE);
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.locator('.org-list li', { hasText: 'Salon Ute' }).getByText('Active').waitFor();

    // Types: empty, then a refusal on its field, then created and edited.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Types' }).click();
    await page.getByText('No types yet.').waitFor();
    await page.getByRole('link', { name: 'New type' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Haircut');
    await page.getByLabel('Length (minutes)').fill('45');
    await page.getByLabel('Minimum notice (minutes before the start)').fill('-5');
    await page.getByLabel('This type has a price').check();
    await page.getByLabel('Price', { exact: true }).fill('25');
    await page.getByLabel('Currency (e.g. EUR)').fill('eur');
    await page.getByRole('button', { name: 'Create type' }).click();
    const noticeError = page.locator('[id="e-bookingRules.minNoticeMinutes"]');
    await noticeError.waitFor();
    assert.match(String(await noticeError.textContent()), /0|small|greater/i);
    assert.equal(
      await page.getByLabel('Minimum notice (minutes before the start)').getAttribute('aria-invalid'),
      'true',
    );
    await checkAtBothWidths(page, 'console-type-refused');
    await page.getByLabel('Minimum notice (minutes before the start)').fill('');
    await page.getByRole('button', { name: 'Create type' }).click();
    await page.getByRole('heading', { name: 'Types' }).waitFor();
    const haircut = page.locator('.record-list li', { hasText: 'Haircut' });
    await haircut.waitFor();
    assert.match(String(await haircut.textContent()), /45 min.*€25\.00/);
    await haircut.getByRole('link', { name: 'Edit Haircut' }).click();
    assert.equal(await page.getByLabel('Price', { exact: true }).inputValue(), '25');
    await page.getByLabel('Length (minutes)').fill('30');
    await page.getByRole('button', { name: 'Save type' }).click();
    await page.locator('.record-list li', { hasText: '30 min' }).waitFor();
    await checkAtBothWidths(page, 'console-types');

    // Resources: one chair the owner manages.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Resources' }).click();
    await page.getByRole('link', { name: 'New resource' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Chair 1');
    await page.getByLabel('Capacity (bookings at the same time)').fill('0');
    await page.getByLabel('Manager', { exact: true }).selectOption({ label: 'Ute Owner' });
    await page.getByRole('button', { name: 'Create resource' }).click();
    await page.locator('#e-capacity').waitFor();
    await checkAtBothWidths(page, 'console-resource-refused');
    await page.getByLabel('Capacity (bookings at the same time)').fill('1');
    await page.getByRole('button', { name: 'Create resource' }).click();
    await page.locator('.record-list li', { hasText: 'Chair 1' }).waitFor();
    await checkAtBothWidths(page, 'console-resources');

    // Two bookings through the API, tomorrow (Berlin) at 10:00 and 11:00.
    const session = await (
      await fetch(`${origin}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
    ).json();
    const auth = { authorization: `Bearer ${session.accessToken}`, 'content-type': 'application/json' };
    const [chair] = await (await fetch(`${origin}/api/resources`, { headers: auth })).json();
    const tomorrow = addDays(dayKey(Date.now(), ZONE), 1);
    const at = (hhmm: string) => instantOf(`${tomorrow}T${hhmm}`, ZONE)!;
    const book = async (start: string, end: string, name: string) => {
      const response = await fetch(`${origin}/api/reservations`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          resourceId: chair.id,
          startTime: start,
          endTime: end,
          customer: { name, email: uniqueEmail('customer') },
        }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      return (await response.json()) as { id: number; reference: string };
    };
    const first = await book(at('10:00'), at('10:30'), 'Anna Kunde');
    await book(at('11:00'), at('11:30'), 'Ben Kunde');

    // The week view: both on tomorrow's day, read in Berlin time.
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Reservations' })
      .click();
    await page.getByRole('heading', { name: 'Reservations' }).waitFor();
    if (mondayOf(tomorrow) !== mondayOf(dayKey(Date.now(), ZONE)))
      await page.getByRole('button', { name: 'Next week' }).click();
    const day = page.locator(`.week > li[data-day="${tomorrow}"]`);
    await day.getByRole('heading', { name: formatDay(tomorrow, 'en-GB') }).waitFor();
    const anna = day.getByRole('link', { name: /10:00–10:30 Anna Kunde/ });
    await anna.waitFor();
    await day.getByRole('link', { name: /11:00–11:30 Ben Kunde/ }).waitFor();
    assert.match(String(await page.getByText('Times in Europe/Berlin').textContent()), /Berlin/);
    // A filter the bookings do not match empties the week.
    await page.getByLabel('Status').selectOption('cancelled');
    await page.getByText('No reservations this week.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await anna.waitFor();
    await checkAtBothWidths(page, 'console-week');

    // The detail: move Anna onto Ben's time, refused with alternatives; take the first one.
    await anna.click();
    await page.getByRole('heading', { name: `Reservation ${first.reference}` }).waitFor();
    await page.getByText('Anna Kunde').waitFor();
    await page.getByRole('button', { name: 'Reschedule' }).click();
    const start = page.getByLabel('New start (Europe/Berlin time)');
    assert.equal(await start.inputValue(), `${tomorrow}T10:00`);
    await start.fill(`${tomorrow}T11:00`);
    await page.getByRole('button', { name: 'Move it' }).click();
    await page.getByText('Sorry, that time is no longer free.').waitFor();
    const alternatives = page.locator('.alternatives button');
    assert.ok((await alternatives.count()) > 0, 'alternatives offered');
    await checkAtBothWidths(page, 'console-reschedule-refused');
    const offered = String(await alternatives.first().textContent());
    await alternatives.first().click();
    await page.getByText('The reservation was moved.').waitFor();
    assert.ok(String(await page.locator('.summary').textContent()).includes(offered), `moved to ${offered}`);

    // Cancel from the detail; the week shows it struck through.
    await page.getByRole('button', { name: 'Cancel reservation' }).click();
    await page.getByRole('heading', { name: 'Cancel this reservation?' }).waitFor();
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page.getByText('The reservation is cancelled.').waitFor();
    assert.equal(await page.locator('.summary dd.status-cancelled').textContent(), 'cancelled');
    assert.equal(await page.getByRole('button', { name: 'Cancel reservation' }).count(), 0);
    await checkAtBothWidths(page, 'console-reservation-cancelled');
    const check = await fetch(`${origin}/api/reservations/${first.id}`, { headers: auth });
    assert.equal((await check.json()).status, 'cancelled');
    await page.getByRole('link', { name: 'Back to the week' }).click();
    await page.locator('.booking.status-cancelled', { hasText: 'Anna Kunde' }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('webhooks: a refused address, the secret once with copy, pause, a failed delivery sent again', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await registerThroughPages(page, origin, { name: 'Ute Owner', organisation: 'Hook Shop' });

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No endpoints yet.').waitFor();
    await page.getByLabel('Address (https)').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('#e-url').waitFor();
    await checkAtBothWidths(page, 'console-webhook-refused');

    await page.getByLabel('Address (https)').fill(receiver.url);
    await page.getByLabel('Description').fill('Front desk');
    await page.getByRole('checkbox', { name: 'reservation.confirmed' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = String(await page.locator('#webhook-secret').textContent());
    assert.match(secret, /^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await checkAtBothWidths(page, 'console-webhook-secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.locator('#webhook-secret').count(), 0);
    const row = page.locator('.record-list li', { hasText: receiver.url });
    assert.match(String(await row.textContent()), /Front desk · 3 events.*active/);
    // Shown once: a reload lists the endpoint without its secret.
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByText(secret).count(), 0);

    // The receiver fails the test event; sent again once it answers, it is delivered.
    receiver.behave((_request, response) => response.writeHead(500).end());
    await row.getByRole('link', { name: /Deliveries/ }).click();
    await page.getByText('Nothing sent yet.').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const delivery = page.locator('.deliveries li', { hasText: 'webhook.test' });
    await delivery.getByText('failed').waitFor();
    assert.match(String(await delivery.textContent()), /answered 500/);
    await checkAtBothWidths(page, 'console-webhook-deliveries');
    receiver.behave((_request, response) => response.writeHead(204).end());
    await delivery.getByRole('button', { name: /^Send webhook.test of .* again$/ }).click();
    await delivery.getByText('delivered').waitFor();
    assert.equal(await delivery.getByRole('button').count(), 0);
    assert.equal(receiver.received.length, 2);

    await page.getByRole('button', { name: 'Pause deliveries' }).click();
    await page.getByRole('button', { name: 'Resume deliveries' }).waitFor();
    await page.locator('.summary').getByText('paused').waitFor();
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await row.getByText('paused').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('members: invite by email, withdraw; a member who accepted gets a new role and is removed', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const owner = await registerThroughPages(page, origin, { name: 'Ute Owner', organisation: 'Team Shop' });
    // An invitation by email is accepted only by the verified owner of the address.
    const invitee = await registerVerifiedUser(t.app, 'Ina Vited');

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.locator('.members li', { hasText: '(you)' }).waitFor();
    await page.getByText('No open invitations.').waitFor();
    await page.getByLabel('Email').fill('not an address');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.locator('#e-email').waitFor();
    await checkAtBothWidths(page, 'console-invite-refused');

    // An invitation to someone without an account yet, withdrawn again.
    const stranger = uniqueEmail('stranger');
    await page.getByLabel('Email').fill(stranger);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const invitation = page.locator('.invitations li', { hasText: stranger });
    await invitation.waitFor();
    assert.match(String(await invitation.textContent()), /Member · until/);
    await invitation.getByRole('button', { name: /Withdraw/ }).click();
    await page.getByText('No open invitations.').waitFor();

    // Someone with an account accepts (over the API); the owner makes them a manager, then removes them.
    await page.getByLabel('Email').fill(invitee.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.locator('.invitations li', { hasText: invitee.email }).waitFor();
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: owner });
    const ownerAuth = { authorization: `Bearer ${login.json().accessToken}` };
    const orgId = (
      (await t.app.inject({ method: 'GET', url: '/api/organisations', headers: ownerAuth })).json() as {
        id: number;
        isActiveOrganisation: boolean;
      }[]
    ).find((o) => o.isActiveOrganisation)!.id;
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/api/organisations/${orgId}/invitation/accept`,
      headers: invitee.auth,
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    await page.reload();
    const member = page.locator('.members li', { hasText: 'Ina Vited' });
    await member.waitFor();
    await page.getByText('No open invitations.').waitFor();
    await page.getByLabel('Role of Ina Vited').selectOption('MANAGER');
    await page.reload();
    assert.equal(await page.getByLabel('Role of Ina Vited').inputValue(), 'MANAGER');
    await checkAtBothWidths(page, 'console-members');
    // The last owner cannot step down: refused in words.
    await page.getByLabel('Role of Ute Owner').selectOption('MEMBER');
    await page.getByRole('alert').waitFor();
    assert.equal(await page.getByLabel('Role of Ute Owner').inputValue(), 'OWNER');
    await member.getByRole('button', { name: 'Remove Ina Vited' }).click();
    await member.getByRole('button', { name: 'Yes, remove Ina Vited' }).click();
    await member.waitFor({ state: 'detached' });
    const after = await t.app.inject({ method: 'GET', url: '/api/organisations', headers: invitee.auth });
    assert.equal(
      (after.json() as { id: number }[]).some((o) => o.id === orgId),
      false,
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});
