// The console's agents and approvals screens in a real browser: a person registers and creates
// an organisation through the page, creates an agent from a preset's actions narrowed to one of
// their two calendars, makes a key (shown once, copied, gone after leaving the screen), sets
// "writes need approval" (a refused limit first, on its field); an MCP client (the SDK's, with
// that key) lists calendars (only the scoped one answers) and books; the activity screen shows
// both calls and filters them; the inbox shows the pending booking; the person approves it and
// sees it executed; the reservation exists. axe-core at 360 and 1280 px on the agents list, the
// agent's detail and the inbox. Run with
// `node scripts/run-browser-tests.mjs test/browser/console-agents.browser.ts`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { createTestApp, freePort, type TestApp } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { checkAtBothWidths, launchChromium, problemsOf, registerThroughPages } from '../helpers/browser.js';
import { connectClient } from '../helpers/mcp.js';

const ZONE = 'Europe/Berlin';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

describe('console agents and approvals (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let mcp: Client | undefined;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: origin, FRONTEND_URL: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  after(async () => {
    await mcp?.close();
    await browser?.close();
    await t?.close();
  });

  test('an agent with a scoped preset, its key once, writes need approval, activity, approve from the inbox', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: ZONE,
      locale: 'en-GB',
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    const problems = problemsOf(page);

    // Registered and with an organisation, through the page.
    const { email, password } = await registerThroughPages(page, origin, {
      name: 'Ada Owner',
      organisation: 'Rooms Ada',
    });

    // Through the API: a second calendar, and a room to book.
    const session = await (
      await fetch(`${origin}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
    ).json();
    const auth = { authorization: `Bearer ${session.accessToken}`, 'content-type': 'application/json' };
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: auth,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.ok(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
      return response.json();
    };
    const work = await api('POST', '/api/calendars', { name: 'Work' });
    const calendars = (await api('GET', '/api/calendars')) as Array<{ id: number; name: string }>;
    const personal = calendars.find((c) => c.id !== work.id);
    assert.ok(personal, JSON.stringify(calendars));
    const type = await api('POST', '/api/resource-types', { name: 'Meeting room' });
    const room = await api('POST', '/api/resources', { name: 'Room A', resourceTypeId: type.id });

    // The agents list: empty.
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await page.getByText('No agents yet.').waitFor();
    await checkAtBothWidths(page, 'console-agents-empty');

    // A new agent: a preset's actions, its calendars narrowed to the first one.
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByRole('heading', { name: 'New agent' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Booker');
    await page.getByLabel('Description').fill('Books meeting rooms for me');
    await page.getByLabel('Actions I choose').check();
    await page
      .getByLabel('Fill in the actions of a preset')
      .selectOption({ label: 'Operational read and write' });
    await page.getByRole('button', { name: 'Use its actions' }).click();
    assert.equal(await page.getByLabel('Create reservation (changes)').isChecked(), true);
    // Outside every preset a person may assign: offered, but only to global admins.
    const cancelAction = page.getByLabel('Cancel reservation (deletes or cancels, global admins only)');
    assert.equal(await cancelAction.isChecked(), false);
    assert.equal(await cancelAction.isDisabled(), true);
    await page.getByLabel('Only the ones I tick').check();
    await page.getByLabel(personal.name, { exact: true }).check();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Booker' }).waitFor();
    const agentId = Number(new URL(page.url()).pathname.split('/').at(-1));
    const agent = await api('GET', `/api/agents/${agentId}`);
    assert.equal(agent.permissionGroupId, null);
    const scopeOf = (key: string) =>
      (agent.permissions as Array<{ actionKey: string; scope: unknown }>).find((p) => p.actionKey === key)
        ?.scope;
    assert.deepEqual(scopeOf('calendar.list'), { calendarIds: [personal.id] });
    assert.equal(scopeOf('reservations.create'), null);
    assert.equal(scopeOf('reservations.cancel'), undefined);

    // A key: shown once, copied, never again.
    await page.getByText('No keys yet.').waitFor();
    await page.getByLabel("New key's label").fill('laptop assistant');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#agent-key');
    await shown.waitFor();
    const key = String(await shown.textContent());
    assert.match(key, /^ag_sk_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
    const keyRow = page.locator('.keys li', { hasText: 'laptop assistant' });
    await keyRow.waitFor();
    await page.getByRole('link', { name: 'Activity of Booker' }).click();
    await page.getByRole('heading', { name: 'Activity of Booker' }).waitFor();
    await page.getByText('No calls yet.').waitFor();
    await page.getByRole('link', { name: 'Settings of Booker' }).click();
    await page.getByRole('heading', { name: 'Booker' }).waitFor();
    await keyRow.waitFor();
    assert.equal(await page.locator('#agent-key').count(), 0);
    assert.ok(!(await page.content()).includes(key), 'the key is not on the page again');

    // The policy: a refused limit lands on its field; then writes need approval, over 12.50 EUR too.
    await page.getByLabel('Ask me before it acts').selectOption('writes');
    await page.getByLabel('Bookings and holds per day').fill('-3');
    await page.getByRole('button', { name: 'Save policy' }).click();
    const limitError = page.locator('[id="e-limits.bookingsPerDay"]');
    await limitError.waitFor();
    assert.equal(await page.getByLabel('Bookings and holds per day').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Bookings and holds per day').fill('');
    await page.getByLabel(/^Also ask when a call costs more than/).fill('12.50');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Policy saved.').waitFor();
    assert.equal(await limitError.count(), 0);
    const policy = await api('GET', `/api/agents/${agentId}/policy`);
    assert.deepEqual(policy, {
      requireApproval: 'writes',
      approvalOverAmount: 1250,
      limits: { bookingsPerDay: null, cancellationsPerDay: null, spendPerDay: null },
    });
    await checkAtBothWidths(page, 'console-agent-detail');
    // Paused, it is refused; resumed, it acts again.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    assert.equal((await api('GET', `/api/agents/${agentId}`)).status, 'paused');
    assert.equal(await page.locator('.summary .badge').textContent(), 'paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    assert.equal((await api('GET', `/api/agents/${agentId}`)).status, 'active');

    // The agent at work: the SDK's MCP client with the key reads (scoped) and asks to book.
    mcp = (await connectClient(new URL(`${origin}/api/mcp`), { 'x-agent-key': key })).client;
    const listed = (await mcp.callTool({ name: 'calendar_list', arguments: {} })) as ToolResult;
    assert.equal(listed.isError, undefined, JSON.stringify(listed));
    const names = (listed.structuredContent as { calendars: Array<{ name: string }> }).calendars.map(
      (c) => c.name,
    );
    assert.deepEqual(names, [personal.name]);
    const booking = {
      resourceId: room.id,
      startTime: at(futureMonday(), 9),
      endTime: at(futureMonday(), 10),
      customer,
    };
    const asked = (await mcp.callTool({ name: 'reservations_create', arguments: booking })) as ToolResult;
    assert.equal(asked.isError, undefined, JSON.stringify(asked));
    const { approval } = asked.structuredContent as { approval: { id: number; status: string } };
    assert.equal(approval.status, 'pending');

    // The activity: both calls, newest first, filterable.
    await page.getByRole('link', { name: 'Activity of Booker' }).click();
    const calls = page.locator('.activity > li');
    await calls.nth(1).waitFor();
    assert.equal(await calls.count(), 2);
    assert.match(String(await calls.nth(0).textContent()), /Create reservation.*done/);
    assert.match(String(await calls.nth(1).textContent()), /List calendars.*done/);
    const approvalLink = calls.nth(0).getByRole('link', { name: `Approval ${approval.id}` });
    await approvalLink.waitFor();
    await page.getByLabel('Outcome').selectOption('error');
    await page.getByText('No calls match these filters.').waitFor();
    await page.getByLabel('Outcome').selectOption('');
    await page.getByLabel('Action').selectOption({ label: 'List calendars' });
    await page.locator('.activity > li', { hasText: 'List calendars' }).waitFor();
    await page.locator('.activity > li', { hasText: 'Create reservation' }).waitFor({ state: 'detached' });
    // The filtered list may be between two renders here: read it once it shows again.
    await page.locator('.activity > li', { hasText: 'List calendars' }).waitFor();
    assert.equal(await calls.count(), 1);
    await page.getByLabel('Action').selectOption('');
    await approvalLink.click();
    await page.getByRole('heading', { name: `Approval ${approval.id}` }).waitFor();
    await page.getByText(/^Book Room A, /).waitFor();

    // The inbox: the pending call first, with its agent and expiry; approved, it runs.
    await nav.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const pendingRow = page.locator('.approvals.pending li', { hasText: 'Book Room A' });
    await pendingRow.waitFor();
    const rowText = String(await pendingRow.textContent());
    assert.match(rowText, /Booker/);
    assert.match(rowText, /reservations_create/);
    assert.match(rowText, /expires /);
    await checkAtBothWidths(page, 'console-approvals-pending');
    await pendingRow.getByRole('button', { name: /^Approve/ }).click();
    const outcome = page.locator('.decision-outcome');
    await outcome.getByText('Executed: the call ran.').waitFor();
    await page.getByText('Nothing waits for your approval.').waitFor();
    const doneRow = page.locator('.approvals li', { hasText: 'Book Room A' });
    assert.match(String(await doneRow.textContent()), /executed/);
    const reservationLink = outcome.getByRole('link', { name: /^Reservation \d+$/ });
    const reservationId = Number(String(await reservationLink.textContent()).replace('Reservation ', ''));
    const reservation = await api('GET', `/api/reservations/${reservationId}`);
    assert.equal(reservation.startTime, booking.startTime);
    assert.equal(reservation.resourceId, room.id);
    assert.equal((await api('GET', `/api/approvals/${approval.id}`)).status, 'executed');
    await checkAtBothWidths(page, 'console-approvals-decided');
    // Filtered by status: executed shows it, pending nothing.
    await page.getByLabel('Status').selectOption('pending');
    await page.getByText('No approvals with this status.').waitFor();
    await page.getByLabel('Status').selectOption('executed');
    await page.locator('.approvals li', { hasText: 'Book Room A' }).waitFor();

    // The agents list now shows it, and the activity the approved run too.
    await nav.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    // The approvals list is a record list naming Booker too: read the agents' own.
    const listed2 = page.locator('.record-list:not(.approvals) li', { hasText: 'Booker' });
    await listed2.waitFor();
    assert.match(String(await listed2.textContent()), /active.*\d+ chosen actions, scoped/);
    await checkAtBothWidths(page, 'console-agents');
    await listed2.getByRole('link', { name: 'Activity of Booker' }).click();
    await page.locator('.activity > li').nth(2).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});
