// The approval page in a real browser (the system Chromium through playwright-core), keyboard
// only: sign in, read the request, approve one and deny another. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, freePort, registerUser, type TestApp } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { checkAtBothWidths, launchChromium } from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

describe('approval page (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let owner: OrgOwner;
  let room: { id: number };
  let key: string;
  let hour = 8;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: origin, FRONTEND_URL: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(t.app, { timezone: 'Europe/Berlin' });
    const type = await createType(t.app, owner, {
      pricingEnabled: true,
      priceAmount: 4000,
      priceCurrency: 'EUR',
    });
    room = await createResource(t.app, owner, { name: 'Room A', resourceTypeId: type.id });
    const post = (url: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url, headers: owner.auth, payload });
    const agent = (
      await post('/api/agents', { name: 'Booker', permissionGroupId: 'reservations_operator' })
    ).json();
    key = (await post(`/api/agents/${agent.id}/keys`, { label: 'k' })).json().key;
    await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/policy`,
      headers: owner.auth,
      payload: { requireApproval: 'writes' },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The agent asks to book; answers the approval id and the time asked for. */
  async function ask(): Promise<{ id: number; startTime: string; approveUrl: string }> {
    hour += 1;
    const input = {
      resourceId: room.id,
      startTime: at(futureMonday(), hour),
      endTime: at(futureMonday(), hour + 1),
      customer,
    };
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/mcp/execute',
      headers: { 'x-agent-key': key },
      payload: { action: 'reservations.create', input },
    });
    const { approval } = response.json().result;
    return { id: approval.id, startTime: input.startTime, approveUrl: approval.approveUrl };
  }
  const booked = async (startTime: string) =>
    (
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/reservations?resourceId=${room.id}&limit=200`,
          headers: owner.auth,
        })
      ).json().items as Array<{ startTime: string }>
    ).filter((r) => r.startTime === startTime).length;
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
  async function tabTo(page: Page, id: string) {
    for (let i = 0; i < 15 && (await focusedId(page)) !== id; i += 1) await page.keyboard.press('Tab');
    assert.equal(await focusedId(page), id);
  }

  test('keyboard only: sign in, read the summary, approve (it runs), then deny another', async () => {
    const first = await ask();
    assert.equal(first.approveUrl, `${origin}/approvals/${first.id}`);
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const response = await page.goto(`${origin}/approvals?id=${first.id}`);
    assert.equal(response?.status(), 200);
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self'/);
    await page.locator('#view-signin').waitFor();
    await checkAtBothWidths(page, 'approval sign-in');
    await tabTo(page, 'email');
    await page.keyboard.type(owner.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(owner.password);
    await page.keyboard.press('Enter');
    await page.locator('#view-approval').waitFor();
    const summary = await page.locator('#summary').textContent();
    assert.match(String(summary), /^Book Room A, .* Europe\/Berlin, 40\.00 EUR$/);
    assert.equal(await focusedId(page), 'approval-title');
    assert.equal(await page.locator('#approval-status').textContent(), 'pending');
    await checkAtBothWidths(page, 'approval pending');
    await tabTo(page, 'approve');
    await page.keyboard.press('Enter');
    await page.locator('#approval-outcome:not([hidden])').waitFor();
    assert.equal(await page.locator('#approval-outcome').textContent(), 'Approved: the call ran.');
    assert.equal(await page.locator('#approval-status').textContent(), 'executed');
    assert.equal(await booked(first.startTime), 1);
    assert.equal(await page.locator('#approve').count(), 0, 'a decided request offers no decision');
    await checkAtBothWidths(page, 'approval executed');

    // The next one, in the same signed-in tab: denied, nothing booked.
    const second = await ask();
    await page.goto(`${origin}/approvals?id=${second.id}`);
    await page.locator('#view-signin:not([hidden]), #view-approval:not([hidden])').waitFor();
    if (await page.locator('#view-signin').isVisible()) {
      await tabTo(page, 'email');
      await page.keyboard.type(owner.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(owner.password);
      await page.keyboard.press('Enter');
    }
    await page.locator('#view-approval').waitFor();
    await tabTo(page, 'deny');
    await page.keyboard.press('Enter');
    await page.locator('#approval-outcome:not([hidden])').waitFor();
    assert.equal(await page.locator('#approval-outcome').textContent(), 'Denied: the call never ran.');
    assert.equal(await booked(second.startTime), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a wrong password, a decision made elsewhere meanwhile, and links that name no request: said in words', async () => {
    const asked = await ask();
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/approvals/${asked.id}`);
    await page.locator('#view-signin').waitFor();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Email or password is incorrect.').waitFor();
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await focusedId(page), 'password');
    await checkAtBothWidths(page, 'approval sign-in refused');
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#view-approval').waitFor();

    // Denied from elsewhere (another tab, the console) while this page still offers Approve.
    const denied = await t.app.inject({
      method: 'POST',
      url: `/api/approvals/${asked.id}/deny`,
      headers: owner.auth,
    });
    assert.equal(denied.statusCode, 200, denied.body);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('#approval-outcome').waitFor();
    assert.equal(await page.locator('#approval-outcome').textContent(), 'Denied: the call never ran.');
    assert.ok(((await page.getByRole('alert').textContent()) ?? '').length > 0, 'the refusal is said');
    assert.equal(await booked(asked.startTime), 0);

    // A link that names no request.
    await page.goto(`${origin}/approvals/not-a-number`);
    await page.locator('#view-failure').waitFor();
    assert.equal(await page.locator('#failure-message').textContent(), 'This link does not name a request.');

    // Someone else's request, signed in as another person.
    const stranger = await registerUser(t.app, 'Stranger');
    const other = await browser.newContext();
    const login = await other.request.post(`${origin}/api/auth/login`, {
      data: { email: stranger.email, password: stranger.password },
    });
    assert.equal(login.status(), 200);
    const strangerPage = await other.newPage();
    await strangerPage.goto(`${origin}/approvals/${asked.id}`);
    await strangerPage.locator('#view-failure').waitFor();
    assert.match(
      String(await strangerPage.locator('#failure-message').textContent()),
      /^There is no such request for your account\./,
    );
    assert.equal(await strangerPage.locator('#summary').count(), 0);
    await checkAtBothWidths(strangerPage, 'approval not found');
    assert.deepEqual(errors, []);
    await other.close();
    await context.close();
  });
});
