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
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };
type Held = { id: number; status: string; expiresAt: string | null; source: string; resourceId: number };
const errorOf = (result: ToolResult) => (result.structuredContent as { error: { code: string } }).error;

/** reservations_hold, _confirm and _release through the SDK's client, as an agent of the reservations operator preset. */
describe('hold tools over MCP', () => {
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
    const type = await createType(app, owner);
    room = await createResource(app, owner, { name: 'Room 1', resourceTypeId: type.id });
    client = await agentClient(app, owner, 'reservations_operator');
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  const slotAt = (hour: number) => ({
    resourceId: room.id,
    startTime: at(futureMonday(), hour),
    endTime: at(futureMonday(), hour + 1),
    customer,
  });

  test('the operator preset lists the hold tools, with their risks in the catalogue', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['reservations_hold', 'reservations_confirm', 'reservations_release'])
      assert.ok(names.includes(name), name);
    assert.ok(!names.includes('reservations_cancel'));
    const catalogue = expectStatus(await as(app, owner).get('/api/agents/catalog'), 200);
    const risks = Object.fromEntries(
      (catalogue.actions as Array<{ key: string; risk: string }>)
        .filter((a) => ['reservations.hold', 'reservations.confirm', 'reservations.release'].includes(a.key))
        .map((a) => [a.key, a.risk]),
    );
    assert.deepEqual(risks, {
      'reservations.hold': 'write',
      'reservations.confirm': 'write',
      'reservations.release': 'write',
    });
  });

  test('hold then confirm: held with expiresAt, then confirmed; the time is taken', async () => {
    const before = Date.now();
    const held = await call('reservations_hold', { ...slotAt(9), holdSeconds: 300 });
    assert.equal(held.isError, undefined, JSON.stringify(held.structuredContent));
    const hold = held.structuredContent as Held;
    assert.equal(hold.status, 'held');
    assert.equal(hold.source, 'mcp');
    const expiresAt = Date.parse(hold.expiresAt!);
    assert.ok(expiresAt >= before + 300_000 && expiresAt <= Date.now() + 300_000);

    const taken = await call('reservations_create', slotAt(9));
    assert.equal(errorOf(taken).code, 'SLOT_UNAVAILABLE');
    const confirmed = await call('reservations_confirm', { reservationId: hold.id });
    assert.equal(confirmed.isError, undefined, JSON.stringify(confirmed.structuredContent));
    assert.deepEqual(
      [(confirmed.structuredContent as Held).status, (confirmed.structuredContent as Held).expiresAt],
      ['confirmed', null],
    );
    const again = await call('reservations_confirm', { reservationId: hold.id });
    assert.equal(errorOf(again).code, 'INVALID_TRANSITION');
  });

  test('hold then release: cancelled and free at once', async () => {
    const hold = (await call('reservations_hold', slotAt(11))).structuredContent as Held;
    const released = await call('reservations_release', { reservationId: hold.id });
    assert.equal((released.structuredContent as Held).status, 'cancelled');
    const booked = await call('reservations_create', slotAt(11));
    assert.equal(booked.isError, undefined, JSON.stringify(booked.structuredContent));
  });

  test('bad input and other tenants: 1801 seconds is VALIDATION_FAILED; a foreign hold is NOT_FOUND', async () => {
    const tooLong = await call('reservations_hold', { ...slotAt(13), holdSeconds: 1801 });
    assert.equal(tooLong.isError, true);
    assert.equal(errorOf(tooLong).code, 'VALIDATION_FAILED');
    const listed = expectStatus(await as(app, owner).get(`/api/reservations?resourceId=${room.id}`), 200);
    assert.ok(listed.items.every((r: { startTime: string }) => r.startTime !== slotAt(13).startTime));

    const stranger = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const theirType = await createType(app, stranger);
    const theirRoom = await createResource(app, stranger, { name: 'Theirs', resourceTypeId: theirType.id });
    const theirs = expectStatus(
      await as(app, stranger).post('/api/reservations/holds', { ...slotAt(9), resourceId: theirRoom.id }),
      201,
    );
    for (const name of ['reservations_confirm', 'reservations_release']) {
      const refused = await call(name, { reservationId: theirs.id });
      assert.equal(errorOf(refused).code, 'NOT_FOUND', name);
    }
    const still = expectStatus(await as(app, stranger).get(`/api/reservations/${theirs.id}`), 200);
    assert.equal(still.status, 'held');
  });
});
