// The slot picker MCP App (ui://booking/slot-picker) in Chromium, inside a minimal host page
// (test/browser/slot-picker-host.ts) served on loopback: the page's SDK client reads the app
// from the real service with an agent key, frames it, hands it an availability_resource_read
// answer through the ext-apps AppBridge; a click on a slot books through the host's tool-call
// bridge, and the reservation is there through the REST API. Needs `npm run build:web`.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import type { FrameLocator, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { freePort } from '../helpers/app.js';
import { futureMonday } from '../helpers/booking.js';
import { assertAccessible, type BrowserApp, problemsOf, startBrowserApp } from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

/** The person's zone, told by the host: not the organisation's (Europe/Berlin) nor UTC. */
const PERSON_ZONE = 'America/New_York';
const LOCALE = 'en-GB';

/** The host page: its script, and what it is to do (JSON, read by the script). */
async function hostPage(config: Record<string, unknown>): Promise<{ html: string; script: string }> {
  const bundled = await build({
    entryPoints: [join(PROJECT_ROOT, 'test', 'browser', 'slot-picker-host.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head>
<body><main><h1>Test host</h1><div id="app"></div><ol id="log"></ol></main>
<script type="application/json" id="config">${JSON.stringify(config)}</script>
<script type="module" src="/host.js"></script></body></html>`;
  return { html, script: bundled.outputFiles[0]!.text };
}

/** Serves the host page on loopback at `port`; `others`: more pages by path, with the same script. */
function serveHost(
  port: number,
  page: { html: string; script: string },
  others: Record<string, string> = {},
): Promise<Server> {
  const server = createServer((request, response) => {
    const script = request.url === '/host.js';
    response.writeHead(200, { 'content-type': script ? 'text/javascript' : 'text/html; charset=utf-8' });
    response.end(script ? page.script : (others[request.url ?? ''] ?? page.html));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describe('slot picker MCP App (browser)', () => {
  let app: BrowserApp;
  let host: Server;
  let hostOrigin: string;
  let owner: OrgOwner;
  let room: { id: number };
  let agentId: number;
  let hostConfig: Record<string, unknown>;

  before(async () => {
    const hostPort = await freePort();
    hostOrigin = `http://127.0.0.1:${hostPort}`;
    // The host page is a browser MCP client of another origin: the service admits it.
    app = await startBrowserApp({ MCP_ALLOWED_ORIGINS: hostOrigin });
    owner = await ownerWithOrganisation(app.t.app, { timezone: 'Europe/Berlin' });
    const type = await createType(app.t.app, owner);
    room = await createResource(app.t.app, owner, { name: 'Room A', resourceTypeId: type.id });
    const inject = (method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>) =>
      app.t.app.inject({ method, url, headers: owner.auth, payload }).then((r) => r.json());
    agentId = (await inject('POST', '/api/agents', { name: 'Picker host' })).id;
    await inject('PUT', `/api/agents/${agentId}/permissions`, {
      permissions: [{ actionKey: 'availability.resource.read' }, { actionKey: 'reservations.create' }],
    });
    const { key } = await inject('POST', `/api/agents/${agentId}/keys`, { label: 'host' });
    const monday = futureMonday();
    hostConfig = {
      mcpUrl: `${app.loopback}/api/mcp`,
      agentKey: key,
      tool: 'availability_resource_read',
      arguments: {
        resourceId: room.id,
        from: monday.toISOString(),
        to: new Date(monday.getTime() + 86_400_000).toISOString(),
      },
      timeZone: PERSON_ZONE,
      locale: LOCALE,
    };
    // At /de the same host in German, as a person whose chat speaks it.
    const german = await hostPage({ ...hostConfig, locale: 'de-DE' });
    host = await serveHost(hostPort, await hostPage(hostConfig), { '/de': german.html });
  });
  after(async () => {
    host?.close();
    await app?.close();
  });

  /** The room's reservations, through the REST API. */
  const bookings = async () =>
    (
      await app.t.app.inject({
        method: 'GET',
        url: `/api/reservations?resourceId=${room.id}`,
        headers: owner.auth,
      })
    ).json().items as Array<{ startTime: string; source: string; customer: Record<string, string> }>;

  /** A page of the host with the picker framed and its availability shown; its console warnings too. */
  async function openHost(agentKey = ''): Promise<{
    page: Page;
    picker: FrameLocator;
    warnings: string[];
    problems: string[];
  }> {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.goto(`${hostOrigin}/#${agentKey}`);
    const picker = page.frameLocator('iframe[title="Slot picker"]');
    await picker.getByRole('heading', { name: 'Pick a time' }).waitFor();
    await picker.getByRole('button').first().waitFor();
    return { page, picker, warnings, problems };
  }

  test('reads the app, shows the slots in the person zone, books the one clicked through the host', async () => {
    const { page, picker, problems } = await openHost();
    const hostLog = () => page.evaluate(() => window.hostLog);
    assert.ok(
      (await hostLog()).includes('resources/read ui://booking/slot-picker: text/html;profile=mcp-app'),
      'the host read the app the tool links, as an MCP App',
    );
    await picker.getByText(`Times in ${PERSON_ZONE}`).waitFor();
    await assertAccessible(page, 'the host page with the picker');

    await picker.getByLabel('Customer name').fill('Ada Lovelace');
    await picker.getByLabel('Customer email').fill('ada@example.test');
    const first = picker.locator('ul.slots button').first();
    const label = (await first.textContent()) ?? '';
    const dayHeading = await picker.locator('section.day h2').first().textContent();
    await first.click();
    await picker.getByText(/^Booked: reference [A-Z0-9]{8} \(confirmed\)\.$/).waitFor();

    const calls = (await hostLog()).filter((line) => line.startsWith('app tools/call'));
    assert.equal(calls.length, 2, calls.join('\n'));
    assert.match(calls[0]!, new RegExp(`^app tools/call reservations_create \\{"resourceId":${room.id},`));
    assert.equal(calls[1], 'app tools/call reservations_create: ok');

    const [booked, ...others] = await bookings();
    assert.ok(booked, 'the picked slot is booked');
    assert.equal(others.length, 0);
    assert.equal(booked.source, 'mcp');
    assert.equal(booked.customer.name, 'Ada Lovelace');
    assert.equal(booked.customer.timeZone, PERSON_ZONE);
    // The button read the booked time as the person's clock and calendar show it.
    const start = new Date(booked.startTime);
    const clock = new Intl.DateTimeFormat(LOCALE, {
      timeZone: PERSON_ZONE,
      hour: '2-digit',
      minute: '2-digit',
    });
    assert.ok(label.startsWith(clock.format(start)), `${label} starts at ${clock.format(start)}`);
    const day = new Intl.DateTimeFormat(LOCALE, {
      timeZone: PERSON_ZONE,
      weekday: 'long',
      month: 'long',
      day: 'numeric',
    });
    assert.equal(dayHeading, day.format(start));

    const activity = await app.t.app.inject({
      method: 'GET',
      url: `/api/agents/${agentId}/activity`,
      headers: owner.auth,
    });
    const actions = activity
      .json()
      .items.map((item: { actionKey: string; outcome: string }) => [item.actionKey, item.outcome]);
    assert.deepEqual(actions[0], ['reservations.create', 'ok'], 'the service ran the call as the agent');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a bridge message of an unknown method is ignored and logged; the picker still books', async () => {
    const { page, picker, warnings, problems } = await openHost();
    await page.evaluate(() => window.sendUnknownMessages());
    await page.waitForFunction(() => window.unknownAnswers['unknown-1'] !== undefined);
    const answer = await page.evaluate(() => window.unknownAnswers['unknown-1']);
    assert.deepEqual(
      (answer as { error: { code: number } }).error.code,
      -32601,
      'a request: method not found',
    );
    assert.ok(
      warnings.some((w) =>
        w.includes('ignored a message of an unknown method: ui/notifications/no-such-thing'),
      ),
      warnings.join('\n'),
    );
    assert.ok(warnings.some((w) => w.includes('ignored a request of an unknown method: booking/teleport')));

    await picker.getByLabel('Customer name').fill('Alan Turing');
    await picker.getByLabel('Customer email').fill('alan@example.test');
    await picker.locator('ul.slots button').nth(1).click();
    await picker.getByText(/^Booked: reference /).waitFor();
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a slot already taken: the tool refusal is shown, nothing booked twice', async () => {
    const { page, picker, problems } = await openHost();
    await picker.getByLabel('Customer name').fill('Grace Hopper');
    await picker.getByLabel('Customer email').fill('grace@example.test');
    // Two pages show the same answer; the second asks for the slot the first has just taken.
    const second = await openHost();
    await second.picker.getByLabel('Customer name').fill('Grace Hopper');
    await second.picker.getByLabel('Customer email').fill('grace@example.test');
    await picker.locator('ul.slots button').first().click();
    await picker.getByText(/^Booked: reference /).waitFor();
    await second.picker.locator('ul.slots button').first().click();
    const refusal = second.picker.getByRole('alert').filter({ hasText: /^Not booked: / });
    await refusal.waitFor();
    // SLOT_UNAVAILABLE, in the picker's words (the service's message is English whatever the host speaks).
    assert.equal(await refusal.textContent(), 'Not booked: that time is no longer free.');
    const starts = (await bookings()).map((booked) => booked.startTime);
    assert.equal(new Set(starts).size, starts.length, 'no time booked twice');
    assert.deepEqual(problems, []);
    await page.context().close();
    await second.page.context().close();
  });

  test('an agent whose writes need approval: the picker says so and opens the approval page through the host', async () => {
    const inject = (method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>) =>
      app.t.app.inject({ method, url, headers: owner.auth, payload }).then((r) => r.json());
    const careful = (await inject('POST', '/api/agents', { name: 'Careful host' })).id;
    await inject('PUT', `/api/agents/${careful}/permissions`, {
      permissions: [{ actionKey: 'availability.resource.read' }, { actionKey: 'reservations.create' }],
    });
    await inject('PUT', `/api/agents/${careful}/policy`, { requireApproval: 'writes' });
    const { key } = await inject('POST', `/api/agents/${careful}/keys`, { label: 'host' });
    const before = (await bookings()).length;

    const { page, picker, problems } = await openHost(key);
    await picker.getByLabel('Customer name').fill('Ada Lovelace');
    await picker.getByLabel('Customer email').fill('ada@example.test');
    await picker.locator('ul.slots button').first().click();
    await picker.getByText(/^Waiting for approval: nothing is booked until the owner agrees\./).waitFor();
    assert.equal((await bookings()).length, before, 'nothing booked yet');
    await picker.getByRole('button', { name: 'Open the approval page' }).click();
    await page.waitForFunction(() => window.hostLog.some((line) => line.startsWith('open link ')));
    const opened = (await page.evaluate(() => window.hostLog)).find((line) => line.startsWith('open link '));
    assert.match(opened ?? '', new RegExp(`^open link ${app.origin}/approvals/\\d+$`));
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test("in the host's language: the picker's words, its dates and the booking's status", async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(`${hostOrigin}/de`);
    const picker = page.frameLocator('iframe[title="Slot picker"]');
    await picker.getByRole('heading', { name: 'Zeit wählen' }).waitFor();
    await picker.getByText(`Zeiten in ${PERSON_ZONE}`).waitFor();
    const dayHeading = await picker.locator('section.day h2').first().textContent();
    assert.match(dayHeading ?? '', /^(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d+\. /);
    await assertAccessible(page, 'the picker in German');
    await picker.getByLabel('Name des Kunden').fill('Ada Lovelace');
    await picker.getByLabel('E-Mail des Kunden').fill('ada@example.test');
    await picker.locator('ul.slots button').first().click();
    await picker.getByText(/^Gebucht: Referenz [A-Z0-9]{8} \(bestätigt\)\.$/).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});
