import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { connectClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };
type Series = {
  seriesId: number;
  reservations: Array<{ id: number; startTime: string; status: string; source: string }>;
};
const errorOf = (result: ToolResult) =>
  (result.structuredContent as { error: { code: string; conflicts?: Array<{ startTime: string }> } }).error;

/** reservations_create with recurrence, reservations_series_get and _cancel through the SDK's client. */
describe('series tools over MCP', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let client: Client;
  let room: { id: number };

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const type = await createType(app, owner, { recurringEnabled: true });
    room = await createResource(app, owner, { name: 'Room 1', resourceTypeId: type.id });
    // An agent holding exactly the series actions: granting a destructive one outside the
    // presets takes a global admin, which the owner is made here.
    await app.services.auth.updateUserByEmail(owner.email, { isGlobalAdmin: true });
    const post = async (url: string, payload: Record<string, unknown>) =>
      expectStatus(await as(app, owner).post(url, payload), 201) as { id: number; key: string };
    const agent = await post('/api/agents', { name: 'Series booker' });
    expectStatus(
      await app.inject({
        method: 'PUT',
        url: `/api/agents/${agent.id}/permissions`,
        headers: owner.auth,
        payload: {
          permissions: ['reservations.create', 'reservations.series.get', 'reservations.series.cancel'].map(
            (actionKey) => ({ actionKey }),
          ),
        },
      }),
      200,
    );
    const { key } = await post(`/api/agents/${agent.id}/keys`, { label: 'k' });
    const address = app.server.address() as { port: number };
    client = (
      await connectClient(new URL(`http://127.0.0.1:${address.port}/api/mcp`), { 'x-agent-key': key })
    ).client;
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  const weekly = (hour: number, count: number) => ({
    resourceId: room.id,
    startTime: at(futureMonday(), hour),
    endTime: at(futureMonday(), hour + 1),
    customer,
    recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
  });

  test('create a series, read it, cancel it', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['reservations_series_get', 'reservations_series_cancel'])
      assert.ok(names.includes(name), name);

    const created = await call('reservations_create', weekly(9, 3));
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    const series = created.structuredContent as Series;
    assert.equal(series.reservations.length, 3);
    assert.ok(series.reservations.every((r) => r.source === 'mcp'));

    const read = await call('reservations_series_get', { seriesId: series.seriesId });
    assert.deepEqual(
      (read.structuredContent as { reservations: Array<{ id: number }> }).reservations.map((r) => r.id),
      series.reservations.map((r) => r.id),
    );
    // One occurrence of it taken makes a second, overlapping series fail whole, naming each clash.
    const clash = await call('reservations_create', weekly(9, 4));
    assert.equal(clash.isError, true);
    assert.equal(errorOf(clash).code, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      errorOf(clash).conflicts?.map((c) => c.startTime),
      series.reservations.map((r) => r.startTime),
    );
    const dry = await call('reservations_create', { ...weekly(14, 2), dryRun: true });
    assert.equal((dry.structuredContent as { wouldSucceed: boolean }).wouldSucceed, true);

    const cancelled = await call('reservations_series_cancel', { seriesId: series.seriesId });
    assert.equal(cancelled.isError, undefined, JSON.stringify(cancelled.structuredContent));
    assert.deepEqual(
      (cancelled.structuredContent as Series).reservations.map((r) => r.status),
      ['cancelled', 'cancelled', 'cancelled'],
    );
    const listed = expectStatus(
      await as(app, owner).get(`/api/reservations?resourceId=${room.id}&status=confirmed`),
      200,
    );
    assert.equal(listed.items.length, 0, 'the dry run wrote nothing; the series is cancelled');
  });

  test('a type without recurringEnabled answers RECURRENCE_NOT_ENABLED; a foreign series is NOT_FOUND', async () => {
    const plain = await createType(app, owner, { name: 'Plain' });
    const plainRoom = await createResource(app, owner, { name: 'Plain', resourceTypeId: plain.id });
    const refused = await call('reservations_create', { ...weekly(9, 2), resourceId: plainRoom.id });
    assert.equal(errorOf(refused).code, 'RECURRENCE_NOT_ENABLED');
    const stranger = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const theirType = await createType(app, stranger, { recurringEnabled: true });
    const theirRoom = await createResource(app, stranger, { name: 'Theirs', resourceTypeId: theirType.id });
    const theirs = expectStatus(
      await as(app, stranger).post('/api/reservations', { ...weekly(9, 2), resourceId: theirRoom.id }),
      201,
    );
    for (const name of ['reservations_series_get', 'reservations_series_cancel'])
      assert.equal(errorOf(await call(name, { seriesId: theirs.seriesId })).code, 'NOT_FOUND', name);
  });
});
