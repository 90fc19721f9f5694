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
import { connectClient, type Era, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown; content?: unknown };
type Booked = { id: number; status: string; startTime: string; resourceId: number };
const errorOf = (result: ToolResult) =>
  (result.structuredContent as { error: { code: string; message: string } }).error;

const ACTIONS = [
  'reservations.create',
  'reservations.hold',
  'reservations.confirm',
  'reservations.cancel',
  'reservations.reschedule',
  'reservations.waitlist.join',
];

/**
 * `idempotencyKey` on the booking tools through the SDK's client, in both eras: the REST
 * `Idempotency-Key`'s semantics, in its store (DECISIONS.md "MCP frontier").
 */
describe('idempotent tool calls over MCP', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let url: URL;
  let typeId: number;
  const clients: Client[] = [];

  /** A new agent of the owner holding ACTIONS, with a key of its own. */
  async function newAgent(): Promise<{ id: number; key: string }> {
    const post = async (path: string, payload: Record<string, unknown>) =>
      expectStatus(await as(app, owner).post(path, payload), 201) as { id: number; key: string };
    const agent = await post('/api/agents', { name: 'Retrying booker' });
    expectStatus(
      await app.inject({
        method: 'PUT',
        url: `/api/agents/${agent.id}/permissions`,
        headers: owner.auth,
        payload: { permissions: ACTIONS.map((actionKey) => ({ actionKey })) },
      }),
      200,
    );
    const { key } = await post(`/api/agents/${agent.id}/keys`, { label: 'k' });
    return { id: agent.id, key };
  }
  async function connect(key: string, era: Era) {
    const { client } = await connectClient(url, { 'x-agent-key': key }, era);
    clients.push(client);
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<ToolResult>;
    return call;
  }
  const newRoom = async (name: string) =>
    (await createResource(app, owner, { name, resourceTypeId: typeId })).id;
  const slot = (resourceId: number, hour: number) => ({
    resourceId,
    startTime: at(futureMonday(), hour),
    endTime: at(futureMonday(), hour + 1),
    customer,
  });
  const reservationsOn = (resourceId: number) =>
    app.db.kysely
      .selectFrom('reservations')
      .select(['id', 'status', 'startTime'])
      .where('resourceId', '=', resourceId)
      .execute();

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/mcp`);
    owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    // Granting a destructive action (cancel) outside the presets takes a global admin.
    await app.services.auth.updateUserByEmail(owner.email, { isGlobalAdmin: true });
    typeId = (await createType(app, owner, { waitlistEnabled: true })).id;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  for (const era of ['legacy', 'modern'] as const) {
    describe(`${era === 'legacy' ? '2025 sessions' : '2026-07-28 stateless'}`, () => {
      let call: Awaited<ReturnType<typeof connect>>;
      let room: number;
      before(async () => {
        call = await connect((await newAgent()).key, era);
        room = await newRoom(`Room ${era}`);
      });

      test('a booking retried after its answer was lost books once, and both answers are equal', async () => {
        const args = { ...slot(room, 9), idempotencyKey: `lost-answer-${era}` };
        const first = await call('reservations_create', args);
        assert.equal(first.isError, undefined, JSON.stringify(first.structuredContent));
        const retried = await call('reservations_create', args);
        assert.deepEqual(retried.structuredContent, first.structuredContent);
        assert.deepEqual(retried.content, first.content);
        const kept = await reservationsOn(room);
        assert.deepEqual(
          kept.map((r) => r.id),
          [(first.structuredContent as Booked).id],
        );
        // Without a key the same call is a new booking, refused: the time is taken.
        const unkeyed = await call('reservations_create', slot(room, 9));
        assert.equal(errorOf(unkeyed).code, 'SLOT_UNAVAILABLE');
      });

      test('the same key with other arguments is IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
        const key = `reused-${era}`;
        const first = await call('reservations_create', { ...slot(room, 11), idempotencyKey: key });
        assert.equal(first.isError, undefined, JSON.stringify(first.structuredContent));
        const other = await call('reservations_create', { ...slot(room, 12), idempotencyKey: key });
        assert.equal(other.isError, true);
        assert.equal(errorOf(other).code, 'IDEMPOTENCY_KEY_REUSED');
        const otherTool = await call('reservations_hold', { ...slot(room, 11), idempotencyKey: key });
        assert.equal(errorOf(otherTool).code, 'IDEMPOTENCY_KEY_REUSED');
        const times = (await reservationsOn(room)).map((r) => r.startTime);
        assert.ok(!times.includes(slot(room, 12).startTime), 'the other time was not booked');
      });

      test('a key over 255 characters is IDEMPOTENCY_KEY_REUSED, an empty one VALIDATION_FAILED; nothing is written', async () => {
        const before = (await reservationsOn(room)).length;
        const tooLong = await call('reservations_create', {
          ...slot(room, 14),
          idempotencyKey: 'k'.repeat(256),
        });
        assert.equal(tooLong.isError, true);
        assert.equal(errorOf(tooLong).code, 'IDEMPOTENCY_KEY_REUSED');
        assert.match(errorOf(tooLong).message, /idempotencyKey must be 1 to 255 characters/);
        const empty = await call('reservations_create', { ...slot(room, 14), idempotencyKey: '' });
        assert.equal(errorOf(empty).code, 'VALIDATION_FAILED');
        assert.match(errorOf(empty).message, /idempotencyKey/);
        const notText = await call('reservations_create', { ...slot(room, 14), idempotencyKey: 42 });
        assert.equal(errorOf(notText).code, 'VALIDATION_FAILED');
        assert.equal((await reservationsOn(room)).length, before);
        const longest = await call('reservations_create', {
          ...slot(room, 14),
          idempotencyKey: 'k'.repeat(255),
        });
        assert.equal(longest.isError, undefined, JSON.stringify(longest.structuredContent));
      });

      test('hold, confirm, reschedule, cancel and waitlist join answer their first result again', async () => {
        const other = await newRoom(`Other ${era}`);
        const held = await call('reservations_hold', { ...slot(other, 9), idempotencyKey: 'h' });
        const id = (held.structuredContent as Booked).id;
        assert.deepEqual(await call('reservations_hold', { ...slot(other, 9), idempotencyKey: 'h' }), held);

        const confirmed = await call('reservations_confirm', { reservationId: id, idempotencyKey: 'c' });
        assert.equal((confirmed.structuredContent as Booked).status, 'confirmed');
        // Run again, confirming a confirmed reservation is INVALID_TRANSITION; the retry is not run again.
        assert.deepEqual(
          await call('reservations_confirm', { reservationId: id, idempotencyKey: 'c' }),
          confirmed,
        );

        const moved = {
          reservationId: id,
          startTime: slot(other, 10).startTime,
          endTime: slot(other, 10).endTime,
        };
        const rescheduled = await call('reservations_reschedule', { ...moved, idempotencyKey: 'r' });
        assert.equal((rescheduled.structuredContent as Booked).startTime, moved.startTime);
        assert.deepEqual(
          await call('reservations_reschedule', { ...moved, idempotencyKey: 'r' }),
          rescheduled,
        );

        const cancelled = await call('reservations_cancel', { reservationId: id, idempotencyKey: 'x' });
        assert.equal((cancelled.structuredContent as Booked).status, 'cancelled');
        assert.deepEqual(
          await call('reservations_cancel', { reservationId: id, idempotencyKey: 'x' }),
          cancelled,
        );

        // A full time: the waitlist takes one entry, however often the join is retried.
        const full = await call('reservations_create', slot(other, 13));
        assert.equal(full.isError, undefined, JSON.stringify(full.structuredContent));
        const waiting = {
          ...slot(other, 13),
          customer: { ...customer, email: `waiting-${era}@example.test` },
        };
        const joined = await call('reservations_waitlist_join', { ...waiting, idempotencyKey: 'w' });
        assert.equal(joined.isError, undefined, JSON.stringify(joined.structuredContent));
        assert.deepEqual(
          await call('reservations_waitlist_join', { ...waiting, idempotencyKey: 'w' }),
          joined,
        );
        const entries = await app.db.kysely.selectFrom('waitlistEntries').select('id').execute();
        assert.equal(
          entries.filter((e) => e.id === (joined.structuredContent as { id: number }).id).length,
          1,
        );
        assert.deepEqual((await reservationsOn(other)).map((r) => r.status).sort(), [
          'cancelled',
          'confirmed',
        ]);
      });

      test('a dry run with a key stands aside: it claims nothing, and the real call then books', async () => {
        const args = { ...slot(room, 15), idempotencyKey: `dry-${era}` };
        const dry = await call('reservations_create', { ...args, dryRun: true });
        assert.equal((dry.structuredContent as { wouldSucceed: boolean }).wouldSucceed, true);
        const booked = await call('reservations_create', args);
        assert.equal(typeof (booked.structuredContent as Booked).id, 'number');
        assert.deepEqual(await call('reservations_create', args), booked);
      });
    });
  }

  test("a key is its agent's, in either era: another agent, and the owner over REST, have keys of their own", async () => {
    const room = await newRoom('Shared keys');
    const agent = await newAgent();
    const legacy = await connect(agent.key, 'legacy');
    const modern = await connect(agent.key, 'modern');
    const args = { ...slot(room, 9), idempotencyKey: 'shared-key' };
    const first = await legacy('reservations_create', args);
    const again = await modern('reservations_create', args);
    assert.deepEqual(
      [again.structuredContent, again.content],
      [first.structuredContent, first.content],
      'the same agent in the other era replays',
    );

    const stranger = await connect((await newAgent()).key, 'modern');
    const theirs = await stranger('reservations_create', { ...slot(room, 10), idempotencyKey: 'shared-key' });
    assert.equal(theirs.isError, undefined, JSON.stringify(theirs.structuredContent));

    // The owner's REST key of the same text is another namespace: it neither replays nor conflicts.
    const rest = await app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: { ...owner.auth, 'idempotency-key': 'shared-key' },
      payload: slot(room, 11),
    });
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(rest.headers['idempotent-replayed'], undefined);
    assert.equal((await reservationsOn(room)).length, 3);
  });

  test('a call sent for approval is retried into the same approval; approved, it books once', async () => {
    const room = await newRoom('Approved keys');
    const agent = await newAgent();
    expectStatus(
      await app.inject({
        method: 'PUT',
        url: `/api/agents/${agent.id}/policy`,
        headers: owner.auth,
        payload: { requireApproval: 'writes' },
      }),
      200,
    );
    const call = await connect(agent.key, 'legacy');
    const key = 'approval-key-0123456789';
    const args = { ...slot(room, 9), idempotencyKey: key };
    const asked = await call('reservations_create', args);
    const approval = (asked.structuredContent as { approval: { id: number } }).approval;
    assert.equal(typeof approval.id, 'number', JSON.stringify(asked.structuredContent));
    assert.deepEqual((await call('reservations_create', args)).structuredContent, asked.structuredContent);
    const pending = expectStatus(await as(app, owner).get('/api/approvals?status=pending'), 200);
    assert.deepEqual(
      pending.items
        .filter((a: { agentId: number }) => a.agentId === agent.id)
        .map((a: { id: number }) => a.id),
      [approval.id],
    );
    const one = await as(app, owner).get(`/api/approvals/${approval.id}`);
    assert.ok(!one.body.includes(key), 'the approval does not keep the key');
    expectStatus(await as(app, owner).post(`/api/approvals/${approval.id}/approve`), 200);
    const kept = await reservationsOn(room);
    assert.equal(kept.length, 1);
    // The key still answers what the call answered: the approval, whose outcome approvals_get reads.
    assert.deepEqual((await call('reservations_create', args)).structuredContent, asked.structuredContent);
    assert.equal((await reservationsOn(room)).length, 1);
  });

  test("the key stays out of the agent's activity; the owner's export lists it as REST keys are listed", async () => {
    const room = await newRoom('Private keys');
    const agent = await newAgent();
    const call = await connect(agent.key, 'modern');
    const key = 'secret-looking-key-0123456789';
    await call('reservations_create', { ...slot(room, 9), idempotencyKey: key });
    await call('reservations_create', { ...slot(room, 9), idempotencyKey: key });
    await call('reservations_create', { ...slot(room, 10), idempotencyKey: key });

    const activity = expectStatus(await as(app, owner).get(`/api/agents/${agent.id}/activity`), 200);
    assert.equal(activity.items.length, 3);
    assert.ok(!JSON.stringify(activity).includes(key), JSON.stringify(activity.items[0]));
    assert.deepEqual(
      activity.items.map((item: { errorCode: string | null }) => item.errorCode),
      ['IDEMPOTENCY_KEY_REUSED', null, null],
    );

    const exported = await app.inject({
      method: 'GET',
      url: '/api/compliance/me/privacy/export',
      headers: owner.auth,
    });
    const data = exported.json().data as Record<string, unknown>;
    const rows = (data.idempotencyKeys as Array<Record<string, unknown>>).filter((row) => row.key === key);
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['completedAt', 'createdAt', 'id', 'key', 'statusCode']);
    const elsewhere = Object.entries(data).filter(
      ([section, value]) => section !== 'idempotencyKeys' && JSON.stringify(value).includes(key),
    );
    assert.deepEqual(
      elsewhere.map(([section]) => section),
      [],
    );
  });
});
