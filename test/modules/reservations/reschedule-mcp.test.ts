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

type ToolResult = {
  isError?: boolean;
  structuredContent?: unknown;
  content?: Array<{ type: string; text?: string }>;
};
type Booked = { id: number | null; status: string; startTime: string; resourceId: number };
type Alternative = { startTime: string; endTime: string; resourceId: number | null };
type Refusal = { code: string; message: string; alternatives?: Alternative[] };
type Verdict = { wouldSucceed: boolean; reservation?: Booked; error?: Refusal };
const errorOf = (result: ToolResult) => (result.structuredContent as { error: Refusal }).error;

/**
 * reservations_reschedule, alternatives on tool errors and the dryRun argument, through the
 * SDK's client (which checks every answer against the tool's output schema), as an agent
 * of the reservations operator preset.
 */
describe('reschedule, alternatives and dry runs over MCP', () => {
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
    startTime: at(futureMonday(), hour),
    endTime: at(futureMonday(), hour + 1),
  });
  const ok = <T>(result: ToolResult) => {
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    return result.structuredContent as T;
  };

  test('the operator preset lists reservations_reschedule (risk write) with an object-rooted output schema', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate.name === 'reservations_reschedule');
    assert.ok(tool, 'listed');
    assert.equal(tool.outputSchema?.type, 'object');
    assert.equal(tool.annotations?.destructiveHint, false);
    const catalogue = expectStatus(await as(app, owner).get('/api/agents/catalog'), 200);
    const entry = (catalogue.actions as Array<{ key: string; risk: string }>).find(
      (a) => a.key === 'reservations.reschedule',
    );
    assert.equal(entry?.risk, 'write');
  });

  test('reschedule moves it, keeping its id; a taken time is SLOT_UNAVAILABLE with alternatives in content and text', async () => {
    const mine = ok<Booked>(
      await call('reservations_create', { resourceId: room.id, ...slotAt(9), customer }),
    );
    ok<Booked>(await call('reservations_create', { resourceId: room.id, ...slotAt(11), customer }));
    const moved = ok<Booked>(
      await call('reservations_reschedule', { reservationId: mine.id, ...slotAt(13) }),
    );
    assert.deepEqual([moved.id, moved.startTime, moved.status], [mine.id, slotAt(13).startTime, 'confirmed']);

    const refused = await call('reservations_reschedule', { reservationId: mine.id, ...slotAt(11) });
    assert.equal(refused.isError, true);
    const error = errorOf(refused);
    assert.equal(error.code, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      error.alternatives?.slice(0, 2).map((a) => a.startTime),
      [slotAt(10).startTime, slotAt(12).startTime],
    );
    assert.deepEqual(JSON.parse(refused.content?.[0]?.text ?? '{}'), refused.structuredContent);
    const still = expectStatus(await as(app, owner).get(`/api/reservations/${mine.id}`), 200);
    assert.equal(still.startTime, slotAt(13).startTime);

    const created = await call('reservations_create', { resourceId: room.id, ...slotAt(11), customer });
    assert.equal(errorOf(created).alternatives?.length, 5);
  });

  test('dryRun on create, hold and reschedule answers the verdict and writes nothing', async () => {
    const count = async () =>
      expectStatus(await as(app, owner).get(`/api/reservations?resourceId=${room.id}&limit=200`), 200).items
        .length;
    const before = await count();
    const create = ok<Verdict>(
      await call('reservations_create', { resourceId: room.id, ...slotAt(15), customer, dryRun: true }),
    );
    assert.deepEqual(
      [create.wouldSucceed, create.reservation?.id, create.reservation?.status],
      [true, null, 'confirmed'],
    );
    const hold = ok<Verdict>(
      await call('reservations_hold', { resourceId: room.id, ...slotAt(15), customer, dryRun: true }),
    );
    assert.equal(hold.reservation?.status, 'held');
    const taken = ok<Verdict>(
      await call('reservations_create', { resourceId: room.id, ...slotAt(11), customer, dryRun: true }),
    );
    assert.equal(taken.wouldSucceed, false);
    assert.equal(taken.error?.code, 'SLOT_UNAVAILABLE');
    assert.equal(taken.error?.alternatives?.length, 5);

    const mine = ok<Booked>(
      await call('reservations_create', { resourceId: room.id, ...slotAt(17), customer }),
    );
    const move = ok<Verdict>(
      await call('reservations_reschedule', { reservationId: mine.id, ...slotAt(18), dryRun: true }),
    );
    assert.deepEqual([move.wouldSucceed, move.reservation?.startTime], [true, slotAt(18).startTime]);
    assert.equal(await count(), before + 1);
    const stored = expectStatus(await as(app, owner).get(`/api/reservations/${mine.id}`), 200);
    assert.equal(stored.startTime, slotAt(17).startTime);
    // Bad input stays a tool error in a dry run.
    const invalid = await call('reservations_create', { resourceId: room.id, customer, dryRun: true });
    assert.equal(errorOf(invalid).code, 'VALIDATION_FAILED');
  });
});
