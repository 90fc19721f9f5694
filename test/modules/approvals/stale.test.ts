import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase, type SignedInUser } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { connectClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };
type Pending = { approvalRequired: true; approval: { id: number } };
type Approval = {
  id: number;
  summary: string;
  status: string;
  result: { id?: number; error?: { code: string; message: string } } | null;
};

/**
 * An approval runs what its owner was shown, where it was asked (DECISIONS.md "What the
 * review found, decided"): approving dry-runs the stored call again, as the agent now and
 * in the approval's organisation; a call that would now differ fails as APPROVAL_STALE.
 */
describe('approvals bound to what was shown', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let url: URL;
  let hour = 5;

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
    owner = await ownerWithOrganisation(app, { name: 'Home', timezone: 'UTC' });
  });
  after(async () => {
    await app.close();
    await dropDb();
  });

  const inject = (
    user: SignedInUser,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    payload?: unknown,
  ) =>
    app.inject({
      method,
      url: path,
      headers: user.auth,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  /** A room of its own type priced 40.00 USD, in the caller's active organisation. */
  async function pricedRoom(user: SignedInUser = owner) {
    const type = await createType(app, user, {
      pricingEnabled: true,
      priceAmount: 4000,
      priceCurrency: 'USD',
    });
    const room = await createResource(app, user, { name: 'Room A', resourceTypeId: type.id });
    return { typeId: type.id, roomId: room.id };
  }

  /** An agent of the owner that books and may change resource types, with `policy`. */
  async function agentWith(policy: Record<string, unknown>) {
    const agent = (await inject(owner, 'POST', '/api/agents', { name: 'Booker' })).json() as { id: number };
    const permissions = [
      'reservations.create',
      'reservations.hold',
      'reservations.confirm',
      'resourceTypes.update',
    ];
    const granted = await app.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/permissions`,
      headers: owner.auth,
      payload: { permissions: permissions.map((actionKey) => ({ actionKey })) },
    });
    assert.equal(granted.statusCode, 200, granted.body);
    const { key } = (await inject(owner, 'POST', `/api/agents/${agent.id}/keys`, { label: 'k' })).json();
    const put = await app.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/policy`,
      headers: owner.auth,
      payload: policy,
    });
    assert.equal(put.statusCode, 200, put.body);
    return (await connectClient(url, { 'x-agent-key': key })).client;
  }

  const call = (client: Client, name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<ToolResult>;
  const booking = (resourceId: number) => {
    hour += 1;
    return {
      resourceId,
      startTime: at(futureMonday(), hour),
      endTime: at(futureMonday(), hour + 1),
      customer,
    };
  };
  /** Asks for `args` to be booked; answers the pending approval's id. */
  async function asked(client: Client, args: Record<string, unknown>): Promise<number> {
    const result = await call(client, 'reservations_create', args);
    const pending = result.structuredContent as unknown as Pending;
    assert.equal(pending.approvalRequired, true, JSON.stringify(result.structuredContent));
    return pending.approval.id;
  }
  const approvalOf = async (id: number) =>
    (await inject(owner, 'GET', `/api/approvals/${id}`)).json() as Approval;
  const bookedIn = (organisationId: number, startTime: string) =>
    app.db.kysely
      .selectFrom('reservations')
      .select(['id', 'organisationId'])
      .where('organisationId', '=', organisationId)
      .where('startTime', '=', startTime)
      .execute();
  const setActive = async (user: SignedInUser, organisationId: number) =>
    assert.equal(
      (await inject(user, 'PATCH', '/api/organisations/active', { organisationId })).statusCode,
      200,
    );

  /** Approving answers 409 APPROVAL_STALE; the approval is failed with why, for the agent too. */
  async function expectStale(client: Client, id: number, why: RegExp) {
    const approved = await inject(owner, 'POST', `/api/approvals/${id}/approve`);
    assert.equal(approved.statusCode, 409, approved.body);
    assert.equal(approved.json().error.code, 'APPROVAL_STALE');
    assert.match(approved.json().error.message, why);
    const stored = await approvalOf(id);
    assert.equal(stored.status, 'failed');
    assert.equal(stored.result?.error?.code, 'APPROVAL_STALE');
    const read = (await call(client, 'approvals_get', { approvalId: id })).structuredContent as Approval;
    assert.equal(read.status, 'failed');
    assert.match(read.result?.error?.message ?? '', why);
    // Approving again runs nothing and answers the same.
    const again = await inject(owner, 'POST', `/api/approvals/${id}/approve`);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'APPROVAL_STALE');
  }

  test('the agent raises the price after asking: approving is APPROVAL_STALE, nothing booked, no checkout', async () => {
    const { typeId, roomId } = await pricedRoom();
    const client = await agentWith({ approvalOverAmount: 3000 });
    const args = booking(roomId);
    const id = await asked(client, args);
    assert.match((await approvalOf(id)).summary, /^Book Room A, .* UTC, 40\.00 USD$/);
    // The same agent raises the type's price to 9,000,000 (90,000.00 USD): a write under no threshold, it runs.
    const raised = await call(client, 'resourceTypes_update', {
      resourceTypeId: typeId,
      priceAmount: 9_000_000,
    });
    assert.equal(raised.isError, undefined, JSON.stringify(raised.structuredContent));
    await expectStale(client, id, /price is now 90000\.00 USD \(shown: 40\.00 USD\)/);
    assert.deepEqual(await bookedIn(owner.organisationId, args.startTime), []);
    const charged = app.db.kysely
      .selectFrom('reservations')
      .select('id')
      .where('paymentAmount', '=', 9_000_000);
    assert.deepEqual(await charged.execute(), [], 'no checkout at the raised price');
    await client.close();
  });

  test('the amount threshold is checked again: a price raised over it since is stale', async () => {
    const { typeId, roomId } = await pricedRoom();
    const client = await agentWith({ requireApproval: 'writes', approvalOverAmount: 5000 });
    const id = await asked(client, booking(roomId));
    const raised = await inject(owner, 'PATCH', `/api/resource-types/${typeId}`, { priceAmount: 6000 });
    assert.equal(raised.statusCode, 200, raised.body);
    await expectStale(
      client,
      id,
      /60\.00 USD \(shown: 40\.00 USD\); which is over the approval threshold of 50\.00 USD/,
    );
    await client.close();
  });

  test('a hold made without a price, confirmed once its type charges, is priced against the threshold', async () => {
    const type = await createType(app, owner);
    const room = await createResource(app, owner, { name: 'Free room', resourceTypeId: type.id });
    const client = await agentWith({ approvalOverAmount: 3000 });
    const held = await call(client, 'reservations_hold', booking(room.id));
    const { id: reservationId, priceAmount } = held.structuredContent as {
      id: number;
      priceAmount: number | null;
    };
    assert.equal(priceAmount, null, JSON.stringify(held.structuredContent));
    const charging = await call(client, 'resourceTypes_update', {
      resourceTypeId: type.id,
      pricingEnabled: true,
      priceAmount: 9_000_000,
      priceCurrency: 'USD',
      paymentRequired: true,
    });
    assert.equal(charging.isError, undefined, JSON.stringify(charging.structuredContent));
    const confirmed = await call(client, 'reservations_confirm', { reservationId });
    const pending = confirmed.structuredContent as unknown as Pending;
    assert.equal(pending.approvalRequired, true, JSON.stringify(confirmed.structuredContent));
    assert.match(
      (await approvalOf(pending.approval.id)).summary,
      new RegExp(`^Confirm Free room, .* UTC, 90000\\.00 USD \\(reservation ${reservationId}\\)$`),
    );
    await client.close();
  });

  test('the daily limits are counted when approved: past one, the approval is stale', async () => {
    const { roomId } = await pricedRoom();
    const client = await agentWith({ requireApproval: 'writes', limits: { bookingsPerDay: 1 } });
    const first = await asked(client, booking(roomId));
    const second = await asked(client, booking(roomId));
    const done = await inject(owner, 'POST', `/api/approvals/${first}/approve`);
    assert.equal(done.json().status, 'executed', done.body);
    await expectStale(client, second, /bookingsPerDay \(1 in any 24 hours\) is reached/);
    await client.close();
  });

  test("the owner's active organisation is another when approving: it runs in the approval's", async () => {
    const { roomId } = await pricedRoom();
    const client = await agentWith({ requireApproval: 'writes' });
    const args = booking(roomId);
    const id = await asked(client, args);
    // The owner joins another organisation and makes it their active one.
    const other = await ownerWithOrganisation(app, { name: 'Elsewhere', timezone: 'UTC' });
    await inject(other, 'POST', `/api/organisations/${other.organisationId}/users/assign`, {
      userId: owner.id,
      role: 'ADMIN',
    });
    await inject(owner, 'POST', `/api/organisations/${other.organisationId}/invitation/accept`);
    await setActive(owner, other.organisationId);
    try {
      const approved = await inject(owner, 'POST', `/api/approvals/${id}/approve`);
      assert.equal(approved.statusCode, 200, approved.body);
      const done = approved.json() as Approval;
      assert.equal(done.status, 'executed', JSON.stringify(done.result));
      const booked = await bookedIn(owner.organisationId, args.startTime);
      assert.deepEqual(
        booked.map((r) => r.id),
        [done.result?.id],
      );
      assert.deepEqual(await bookedIn(other.organisationId, args.startTime), []);

      // Asked in the other organisation, then the owner is removed from it: stale, nothing runs anywhere.
      const theirs = await pricedRoom(other);
      const there = booking(theirs.roomId);
      const asking = await asked(client, there);
      await setActive(owner, owner.organisationId);
      const removed = await inject(
        other,
        'DELETE',
        `/api/organisations/${other.organisationId}/users/${owner.id}`,
      );
      assert.ok(removed.statusCode < 300, removed.body);
      await expectStale(client, asking, /organisation \(\d+\) is not one its owner can act in now/);
      assert.deepEqual(await bookedIn(other.organisationId, there.startTime), []);
    } finally {
      await setActive(owner, owner.organisationId);
      await client.close();
    }
  });
});
