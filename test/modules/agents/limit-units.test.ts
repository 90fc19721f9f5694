import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase } from '../../helpers/app.js';
import { hourAfterHour } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { connectClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };
type Reservation = { id: number; status: string; startTime: string };
const errorOf = (result: ToolResult) =>
  (result.structuredContent as { error?: { code: string; message: string } }).error;

/**
 * Daily limits count units, not calls (DECISIONS.md "What the review found, decided"):
 * each occurrence of a series a booking, each occurrence a series cancel cancels a
 * cancellation, and a waitlist offer the agent confirms a booking, priced.
 */
describe('agent limits count units', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let url: URL;
  let room: { id: number };

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
    owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    // Granting a destructive action outside the presets takes a global admin.
    await app.services.auth.updateUserByEmail(owner.email, { isGlobalAdmin: true });
    const type = await createType(app, owner, {
      recurringEnabled: true,
      waitlistEnabled: true,
      pricingEnabled: true,
      priceAmount: 4000,
      priceCurrency: 'EUR',
    });
    room = await createResource(app, owner, { name: 'Studio', resourceTypeId: type.id });
  });
  after(async () => {
    await app.close();
    await dropDb();
  });

  const inject = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) =>
    app.inject({
      method,
      url: path,
      headers: owner.auth,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  async function agentWith(policy: Record<string, unknown>) {
    const agent = (await inject('POST', '/api/agents', { name: 'Booker' })).json() as { id: number };
    const permissions = [
      'reservations.create',
      'reservations.confirm',
      'reservations.series.cancel',
      'reservations.waitlist.join',
    ];
    const granted = await inject('PUT', `/api/agents/${agent.id}/permissions`, {
      permissions: permissions.map((actionKey) => ({ actionKey })),
    });
    assert.equal(granted.statusCode, 200, granted.body);
    const { key } = (await inject('POST', `/api/agents/${agent.id}/keys`, { label: 'k' })).json();
    const setPolicy = async (body: Record<string, unknown>) =>
      assert.equal((await inject('PUT', `/api/agents/${agent.id}/policy`, body)).statusCode, 200);
    await setPolicy(policy);
    return { client: (await connectClient(url, { 'x-agent-key': key })).client, setPolicy };
  }

  const call = (client: Client, name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  const slot = hourAfterHour(() => room.id, 5);
  const weekly = (count: number) => ({ ...slot(), recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`] });
  const bookedAt = async (startTime: string) =>
    (
      (await inject('GET', `/api/reservations?resourceId=${room.id}&limit=200`)).json().items as Reservation[]
    ).filter((r) => r.startTime === startTime && r.status !== 'cancelled');

  test('each occurrence of a series counts toward bookingsPerDay and spendPerDay; a series that does not fit books nothing', async () => {
    const { client, setPolicy } = await agentWith({ limits: { bookingsPerDay: 2 } });
    const three = weekly(3);
    const refused = await call(client, 'reservations_create', three);
    assert.equal(errorOf(refused)?.code, 'AGENT_LIMIT_REACHED', JSON.stringify(refused.structuredContent));
    assert.match(
      errorOf(refused)?.message ?? '',
      /bookingsPerDay \(2 in any 24 hours\) is reached: this call uses 3 of it/,
    );
    assert.deepEqual(await bookedAt(three.startTime), [], 'all or nothing: no occurrence booked');
    const two = await call(client, 'reservations_create', weekly(2));
    assert.equal(two.isError, undefined, JSON.stringify(two.structuredContent));
    const single = await call(client, 'reservations_create', slot());
    assert.equal(errorOf(single)?.code, 'AGENT_LIMIT_REACHED');
    // Spend: three occurrences of 40.00 EUR are 120.00, over 100.00.
    await setPolicy({ limits: { spendPerDay: 10000 } });
    const dear = await call(client, 'reservations_create', weekly(3));
    assert.match(errorOf(dear)?.message ?? '', /spendPerDay \(10000 in any 24 hours\)/);
    await client.close();
  });

  test('a single booking counts one unit without a dry run when no amount matters; a spend limit or a series runs one', async () => {
    const { client, setPolicy } = await agentWith({ limits: { bookingsPerDay: 1 } });
    const dryRuns = mock.method(app.services.reservations, 'dryRunCreate');
    try {
      const first = await call(client, 'reservations_create', slot());
      assert.equal(first.isError, undefined, JSON.stringify(first.structuredContent));
      const second = await call(client, 'reservations_create', slot());
      assert.equal(errorOf(second)?.code, 'AGENT_LIMIT_REACHED', 'the first counted its unit');
      assert.equal(dryRuns.mock.callCount(), 0, 'one reservation, one unit: nothing to quote');
      await setPolicy({ limits: { bookingsPerDay: 10, spendPerDay: 100000 } });
      await call(client, 'reservations_create', slot());
      assert.equal(dryRuns.mock.callCount(), 1, 'a spend limit needs the price');
      await setPolicy({ limits: { bookingsPerDay: 10 } });
      await call(client, 'reservations_create', weekly(2));
      assert.equal(dryRuns.mock.callCount(), 2, 'a series counts its occurrences');
    } finally {
      dryRuns.mock.restore();
      await client.close();
    }
  });

  test('each occurrence reservations_series_cancel cancels counts toward cancellationsPerDay', async () => {
    const { client, setPolicy } = await agentWith({ limits: { cancellationsPerDay: 2 } });
    const booked = await call(client, 'reservations_create', weekly(3));
    const { seriesId } = booked.structuredContent as { seriesId: number };
    const refused = await call(client, 'reservations_series_cancel', { seriesId });
    assert.equal(errorOf(refused)?.code, 'AGENT_LIMIT_REACHED', JSON.stringify(refused.structuredContent));
    assert.match(
      errorOf(refused)?.message ?? '',
      /cancellationsPerDay \(2 in any 24 hours\) is reached: this call uses 3 of it/,
    );
    const series = (await inject('GET', `/api/reservations/series/${seriesId}`)).json() as {
      reservations: Reservation[];
    };
    assert.deepEqual(
      series.reservations.map((r) => r.status),
      ['confirmed', 'confirmed', 'confirmed'],
    );
    // Sent for approval, its summary names every occurrence it cancels.
    await setPolicy({ requireApproval: 'destructive', limits: { cancellationsPerDay: 3 } });
    const asked = await call(client, 'reservations_series_cancel', { seriesId });
    const { approval } = asked.structuredContent as { approval: { id: number } };
    const stored = (await inject('GET', `/api/approvals/${approval.id}`)).json() as { summary: string };
    assert.match(
      stored.summary,
      new RegExp(`^Cancel the series on Studio, .* UTC \\(and 2 more\\) \\(series ${seriesId}\\)$`),
    );
    const approved = await inject('POST', `/api/approvals/${approval.id}/approve`);
    assert.equal(approved.json().status, 'executed', approved.body);
    await client.close();
  });

  test('confirming a waitlist offer counts as a booking and is priced against approvalOverAmount', async () => {
    const { client, setPolicy } = await agentWith({ limits: { bookingsPerDay: 1 } });
    assert.equal((await call(client, 'reservations_create', slot())).isError, undefined);
    // A full time the agent waits for; the owner's booking of it is cancelled, and it is offered.
    const wanted = slot();
    const taken = await inject('POST', '/api/reservations', wanted);
    assert.equal(taken.statusCode, 201, taken.body);
    const joined = await call(client, 'reservations_waitlist_join', wanted);
    assert.equal(joined.isError, undefined, JSON.stringify(joined.structuredContent));
    const entryId = (joined.structuredContent as { id: number }).id;
    assert.equal((await inject('POST', `/api/reservations/${taken.json().id}/cancel`, {})).statusCode, 200);
    await app.services.waitlist.processOffers({ sweep: true });
    const entry = (await inject('GET', `/api/reservations/waitlist/${entryId}`)).json();
    assert.equal(entry.status, 'offered', JSON.stringify(entry));
    const reservationId = entry.offer.reservationId as number;

    const refused = await call(client, 'reservations_confirm', { reservationId });
    assert.equal(errorOf(refused)?.code, 'AGENT_LIMIT_REACHED', JSON.stringify(refused.structuredContent));
    assert.match(errorOf(refused)?.message ?? '', /bookingsPerDay/);
    assert.equal((await inject('GET', `/api/reservations/${reservationId}`)).json().status, 'held');

    await setPolicy({ approvalOverAmount: 3000 });
    const asked = await call(client, 'reservations_confirm', { reservationId });
    const { approval } = asked.structuredContent as { approval?: { id: number } };
    assert.ok(approval, JSON.stringify(asked.structuredContent));
    const stored = (await inject('GET', `/api/approvals/${approval.id}`)).json() as { summary: string };
    assert.match(
      stored.summary,
      new RegExp(`^Confirm Studio, .* UTC, 40\\.00 EUR \\(reservation ${reservationId}\\)$`),
    );
    const approved = await inject('POST', `/api/approvals/${approval.id}/approve`);
    assert.equal(approved.json().status, 'executed', approved.body);
    assert.equal((await inject('GET', `/api/reservations/${reservationId}`)).json().status, 'confirmed');
    await client.close();
  });
});
