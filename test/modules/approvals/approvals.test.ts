import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase, registerUser, type SignedInUser } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { connectClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };
type Pending = {
  approvalRequired: true;
  approval: { id: number; status: string; expiresAt: string; approveUrl: string };
};
type Approval = {
  id: number;
  agentId: number;
  actionKey: string;
  arguments: Record<string, unknown>;
  summary: string;
  status: string;
  result: Record<string, unknown> | null;
  decidedAt: string | null;
  expiresAt: string;
};

/** Approvals end to end: the policy, the stored call, the owner's decision, and the agent reading the outcome. */
describe('approvals through the SDK clients', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let roomA: { id: number };
  let dearRoom: { id: number };
  let url: URL;
  let hour = 6;

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
    owner = await ownerWithOrganisation(app, { timezone: 'Europe/Berlin' });
    const type = await createType(app, owner, {
      pricingEnabled: true,
      priceAmount: 4000,
      priceCurrency: 'EUR',
    });
    roomA = await createResource(app, owner, { name: 'Room A', resourceTypeId: type.id });
    const dear = await createType(app, owner, {
      name: 'Hall',
      pricingEnabled: true,
      priceAmount: 6000,
      priceCurrency: 'EUR',
    });
    dearRoom = await createResource(app, owner, { name: 'Hall B', resourceTypeId: dear.id });
  });
  after(async () => {
    await app.close();
    await dropDb();
  });

  const inject = (
    user: SignedInUser,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
  ) =>
    app.inject({
      method,
      url: path,
      headers: user.auth,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  /** A new agent of `user` with the operator preset, its policy, and an SDK client of the given era. */
  async function agentWith(
    policy: Record<string, unknown>,
    era: 'legacy' | 'modern' = 'legacy',
    user: SignedInUser = owner,
  ) {
    const agent = (
      await inject(user, 'POST', '/api/agents', {
        name: 'Booker',
        permissionGroupId: 'reservations_operator',
      })
    ).json();
    const { key } = (await inject(user, 'POST', `/api/agents/${agent.id}/keys`, { label: 'k' })).json();
    const put = await inject(user, 'PUT', `/api/agents/${agent.id}/policy`, policy);
    assert.equal(put.statusCode, 200, put.body);
    const { client } = await connectClient(url, { 'x-agent-key': key }, era);
    return { agent: agent as { id: number }, key: key as string, client };
  }

  const call = (client: Client, name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  const booking = (resourceId = roomA.id) => {
    hour += 1;
    return {
      resourceId,
      startTime: at(futureMonday(), hour),
      endTime: at(futureMonday(), hour + 1),
      customer,
    };
  };
  const reservationsAt = async (resourceId: number) =>
    (await inject(owner, 'GET', `/api/reservations?resourceId=${resourceId}&limit=200`)).json()
      .items as Array<{ id: number; status: string; startTime: string }>;
  const approvalOf = async (id: number, user: SignedInUser = owner) => {
    const response = await inject(user, 'GET', `/api/approvals/${id}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Approval;
  };

  test('writes need approval (2025 era): nothing runs; the owner approves twice at once; it runs once', async () => {
    const { agent, client } = await agentWith({ requireApproval: 'writes' });
    const args = booking();
    const asked = await call(client, 'reservations_create', args);
    assert.equal(asked.isError, undefined, JSON.stringify(asked.structuredContent));
    const { approval } = asked.structuredContent as unknown as Pending;
    assert.equal(approval.status, 'pending');
    assert.equal(approval.approveUrl, `http://frontend.test/approvals/${approval.id}`);
    const in24h = Date.parse(approval.expiresAt) - Date.now();
    assert.ok(in24h > 23.9 * 3600_000 && in24h <= 24 * 3600_000, approval.expiresAt);
    assert.equal((await reservationsAt(roomA.id)).filter((r) => r.startTime === args.startTime).length, 0);

    // Reads never wait.
    const read = await call(client, 'agent_profile', {});
    assert.equal(read.isError, undefined, JSON.stringify(read.structuredContent));
    // A dry run changes nothing: it answers at once.
    const dry = await call(client, 'reservations_create', { ...args, dryRun: true });
    assert.equal((dry.structuredContent as { wouldSucceed: boolean }).wouldSucceed, true);

    const stored = await approvalOf(approval.id);
    assert.equal(stored.actionKey, 'reservations.create');
    assert.equal(stored.agentId, agent.id);
    assert.deepEqual((stored.arguments as { customer: unknown }).customer, customer);
    assert.match(
      stored.summary,
      /^Book Room A, \w{3} \d{1,2} \w{3} \d\d:\d\d-\d\d:\d\d Europe\/Berlin, 40\.00 EUR$/,
    );
    const berlinHour = String(new Date(args.startTime).getUTCHours() + 1).padStart(2, '0');
    assert.ok(stored.summary.includes(` ${berlinHour}:00-`), `${stored.summary} shows Berlin time`);
    const pendingList = (await inject(owner, 'GET', '/api/approvals?status=pending')).json();
    assert.ok(pendingList.items.some((a: Approval) => a.id === approval.id));

    const polled = await call(client, 'approvals_get', { approvalId: approval.id });
    assert.equal((polled.structuredContent as Approval).status, 'pending');

    // A double click (or two tabs): both answer; the call runs once.
    const [first, second] = await Promise.all([
      inject(owner, 'POST', `/api/approvals/${approval.id}/approve`),
      inject(owner, 'POST', `/api/approvals/${approval.id}/approve`),
    ]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.statusCode, 200, second.body);
    const booked = (await reservationsAt(roomA.id)).filter((r) => r.startTime === args.startTime);
    assert.equal(booked.length, 1);
    const done = await approvalOf(approval.id);
    assert.equal(done.status, 'executed');
    assert.equal((done.result as { id: number }).id, booked[0]!.id);
    assert.ok(done.decidedAt);

    const result = await call(client, 'approvals_get', { approvalId: approval.id });
    assert.deepEqual(result.structuredContent, done);
    // Deciding again: approve answers the same, deny is a conflict.
    assert.equal(
      (await inject(owner, 'POST', `/api/approvals/${approval.id}/approve`)).json().status,
      'executed',
    );
    const denyLate = await inject(owner, 'POST', `/api/approvals/${approval.id}/deny`);
    assert.equal(denyLate.statusCode, 409);
    assert.equal(denyLate.json().error.code, 'CONFLICT');

    // The activity: the call that asked, and the approved run, with redacted arguments.
    const activity = (
      await inject(owner, 'GET', `/api/agents/${agent.id}/activity?actionKey=reservations.create&limit=50`)
    ).json().items as Array<{
      outcome: string;
      approvalId: number | null;
      arguments: { customer?: { email?: string; name?: string }; dryRun?: boolean };
      targetIds: number[];
    }>;
    const withApproval = activity.filter((item) => item.approvalId === approval.id);
    assert.equal(withApproval.length, 2, JSON.stringify(activity));
    for (const item of withApproval) assert.equal(item.arguments.customer?.email, '[redacted]');
    assert.ok(withApproval.some((item) => item.targetIds.includes(booked[0]!.id)));

    // The events: requested, then decided (with the outcome).
    const events = await app.db.kysely
      .selectFrom('outboxEvents')
      .select(['type', 'userId', 'data'])
      .where('type', 'in', ['agent.approval.requested', 'agent.approval.decided'])
      .execute();
    const mine = events.filter((e) => (JSON.parse(e.data) as Approval).id === approval.id);
    assert.deepEqual(
      mine.map((e) => [e.type, e.userId, (JSON.parse(e.data) as Approval).status]),
      [
        ['agent.approval.requested', owner.id, 'pending'],
        ['agent.approval.decided', owner.id, 'executed'],
      ],
    );
    await client.close();
  });

  test('the amount threshold (2026-07-28 era): under it runs, over it waits; a denied call never runs', async () => {
    const { client } = await agentWith({ approvalOverAmount: 5000 }, 'modern');
    const cheap = await call(client, 'reservations_create', booking());
    assert.equal((cheap.structuredContent as { status: string }).status, 'confirmed');
    const dearArgs = booking(dearRoom.id);
    const dear = await call(client, 'reservations_create', dearArgs);
    const { approval } = dear.structuredContent as unknown as Pending;
    assert.ok(approval?.id, JSON.stringify(dear.structuredContent));
    assert.match((await approvalOf(approval.id)).summary, /^Book Hall B, .* Europe\/Berlin, 60\.00 EUR$/);
    const denied = await inject(owner, 'POST', `/api/approvals/${approval.id}/deny`);
    assert.equal(denied.statusCode, 200, denied.body);
    assert.equal(denied.json().status, 'denied');
    const late = await inject(owner, 'POST', `/api/approvals/${approval.id}/approve`);
    assert.equal(late.statusCode, 409);
    assert.equal(
      (await reservationsAt(dearRoom.id)).filter((r) => r.startTime === dearArgs.startTime).length,
      0,
    );
    const read = await call(client, 'approvals_get', { approvalId: approval.id });
    assert.equal((read.structuredContent as Approval).status, 'denied');
    await client.close();
  });

  test("bad input: policy values, someone else's approval, another agent's, an expired one", async () => {
    const { agent, client } = await agentWith({ requireApproval: 'writes' });
    for (const body of [
      { limits: { bookingsPerDay: -1 } },
      { limits: { spendPerDay: 0 } },
      { requireApproval: 'always' },
      { approvalOverAmount: -5 },
      { limits: { bookingsPerDay: 1.5 } },
      { unknown: true },
    ]) {
      const response = await inject(owner, 'PUT', `/api/agents/${agent.id}/policy`, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().error.code, 'VALIDATION_FAILED');
    }
    assert.deepEqual((await inject(owner, 'GET', `/api/agents/${agent.id}/policy`)).json(), {
      requireApproval: 'writes',
      approvalOverAmount: null,
      limits: { bookingsPerDay: null, cancellationsPerDay: null, spendPerDay: null },
    });
    const stranger = await registerUser(app, 'Stranger');
    assert.equal((await inject(stranger, 'GET', `/api/agents/${agent.id}/policy`)).statusCode, 404);
    assert.equal((await inject(stranger, 'PUT', `/api/agents/${agent.id}/policy`, {})).statusCode, 404);

    const asked = await call(client, 'reservations_create', booking());
    const { approval } = asked.structuredContent as unknown as Pending;
    for (const action of ['approve', 'deny']) {
      const response = await inject(stranger, 'POST', `/api/approvals/${approval.id}/${action}`);
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error.code, 'NOT_FOUND');
    }
    assert.equal((await inject(stranger, 'GET', `/api/approvals/${approval.id}`)).statusCode, 404);

    // Another agent of the same owner: NOT_FOUND, as if it did not exist.
    const other = await agentWith({});
    const foreign = await call(other.client, 'approvals_get', { approvalId: approval.id });
    assert.equal(foreign.isError, true);
    assert.equal((foreign.structuredContent as { error: { code: string } }).error.code, 'NOT_FOUND');
    await other.client.close();

    // Expired: read as expired at once; approving it is a conflict and runs nothing.
    await app.db.kysely
      .updateTable('agentApprovals')
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', approval.id)
      .execute();
    assert.equal((await approvalOf(approval.id)).status, 'expired');
    const late = await inject(owner, 'POST', `/api/approvals/${approval.id}/approve`);
    assert.equal(late.statusCode, 409);
    assert.match(late.json().error.message, /expired/);
    // The sweep records it, with its event.
    assert.equal(await app.services.approvals.expireDue(), 1);
    assert.equal((await approvalOf(approval.id)).status, 'expired');
    await client.close();
  });

  test("a disabled agent's pending approval never runs: approving it fails, recorded", async () => {
    const { agent, client } = await agentWith({ requireApproval: 'writes' });
    const args = booking();
    const asked = await call(client, 'reservations_create', args);
    const { approval } = asked.structuredContent as unknown as Pending;
    await client.close();
    assert.equal((await inject(owner, 'DELETE', `/api/agents/${agent.id}`)).statusCode, 200);
    const approved = await inject(owner, 'POST', `/api/approvals/${approval.id}/approve`);
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(approved.json().status, 'failed');
    assert.equal(approved.json().result.error.code, 'FORBIDDEN');
    assert.equal((await reservationsAt(roomA.id)).filter((r) => r.startTime === args.startTime).length, 0);
    // A paused one fails the same way.
    const paused = await agentWith({ requireApproval: 'writes' });
    const again = await call(paused.client, 'reservations_create', booking());
    const pending = (again.structuredContent as unknown as Pending).approval;
    await inject(owner, 'PUT', `/api/agents/${paused.agent.id}`, { status: 'paused' });
    const failed = (await inject(owner, 'POST', `/api/approvals/${pending.id}/approve`)).json();
    assert.equal(failed.status, 'failed');
    assert.equal(failed.result.error.code, 'AGENT_PAUSED');
    await paused.client.close();
  });

  test('daily limits: the last unit, then AGENT_LIMIT_REACHED naming the limit; a failed call counts nothing', async () => {
    const { client } = await agentWith({ limits: { bookingsPerDay: 2, cancellationsPerDay: 1 } });
    const firstArgs = booking();
    assert.equal((await call(client, 'reservations_create', firstArgs)).isError, undefined);
    // The same slot again fails (taken): it uses nothing of the limit.
    const taken = await call(client, 'reservations_create', firstArgs);
    assert.equal((taken.structuredContent as { error: { code: string } }).error.code, 'SLOT_UNAVAILABLE');
    const held = await call(client, 'reservations_hold', booking());
    assert.equal(held.isError, undefined, JSON.stringify(held.structuredContent));
    const third = await call(client, 'reservations_create', booking());
    assert.equal(third.isError, true);
    const error = (third.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'AGENT_LIMIT_REACHED');
    assert.match(
      error.message,
      /bookingsPerDay \(2 in any 24 hours\) is reached; it frees at \d{4}-\d\d-\d\dT/,
    );
    // Releases count against cancellationsPerDay.
    const heldId = (held.structuredContent as { id: number }).id;
    assert.equal((await call(client, 'reservations_release', { reservationId: heldId })).isError, undefined);
    const hold2 = await call(client, 'reservations_hold', booking());
    assert.equal((hold2.structuredContent as { error: { code: string } }).error.code, 'AGENT_LIMIT_REACHED');
    await client.close();
  });

  test('a daily limit counts the last 24 hours: a use leaves the window a day after it was made, however long the pause', async () => {
    const start = Date.now();
    // Stateless 2026-07-28 requests: a 2025-era session would end after a day unused.
    const { client } = await agentWith({ limits: { bookingsPerDay: 2 } }, 'modern');
    const book = () => call(client, 'reservations_create', booking());
    const refusal = async () => {
      const refused = await book();
      const error = (refused.structuredContent as { error: { code: string; message: string } }).error;
      assert.equal(error.code, 'AGENT_LIMIT_REACHED');
      return error.message;
    };
    try {
      mock.timers.enable({ apis: ['Date'], now: start });
      assert.equal((await book()).isError, undefined);
      mock.timers.tick(3_600_000);
      assert.equal((await book()).isError, undefined);
      // Full: it frees when the first use is a day old.
      assert.match(await refusal(), new RegExp(`it frees at ${new Date(start + 86_400_000).toISOString()}`));
      // A clock that went back (another instance's, a little behind) still counts both.
      mock.timers.setTime(start + 1_800_000);
      await refusal();
      mock.timers.setTime(start + 86_400_000 - 1);
      await refusal();
      mock.timers.tick(2);
      assert.equal((await book()).isError, undefined);
      assert.match(
        await refusal(),
        new RegExp(`it frees at ${new Date(start + 3_600_000 + 86_400_000).toISOString()}`),
      );
      // Two days on every use has left: two fit again, not a third.
      mock.timers.setTime(start + 2 * 86_400_000 + 3_600_000);
      assert.equal((await book()).isError, undefined);
      assert.equal((await book()).isError, undefined);
      await refusal();
    } finally {
      mock.timers.reset();
      await client.close();
    }
  });

  test('spendPerDay counts the price a dry run tells', async () => {
    const { client } = await agentWith({ limits: { spendPerDay: 10000 } });
    assert.equal((await call(client, 'reservations_create', booking(dearRoom.id))).isError, undefined); // 60.00
    const over = await call(client, 'reservations_create', booking(dearRoom.id)); // would be 120.00
    assert.match((over.structuredContent as { error: { message: string } }).error.message, /spendPerDay/);
    assert.equal((await call(client, 'reservations_create', booking())).isError, undefined); // 100.00 exactly
    await client.close();
  });
});
