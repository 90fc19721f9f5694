import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Db } from '../../src/db/database.js';
import { at, customer, futureMonday, hourSlot } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { start, type TestCluster } from '../helpers/cluster.js';
import { as, expectStatus } from '../helpers/http.js';
import { newAgent } from '../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';
import { remoteApp } from '../helpers/remote.js';
import { type Receiver, startReceiver, verified, webhooksOf } from '../modules/webhooks/helpers.js';

/**
 * Three instances behind HAProxy on one PostgreSQL and Redis, every request through the
 * balancer (round robin, so consecutive requests land on different instances) or, where a test
 * must name the instance, its own port: what must happen once happens once across them.
 */
describe('a cluster of three instances', () => {
  let cluster: TestCluster;
  let balancer: FastifyInstance;
  let instances: FastifyInstance[];
  let db: Db;
  let owner: OrgOwner;
  let receiver: Receiver;
  const mon = futureMonday();

  before(async () => {
    cluster = await start({
      instances: 3,
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    db = createDatabase(cluster.databaseUrl);
    balancer = remoteApp(cluster.url, db);
    instances = cluster.instances.map((instance) => remoteApp(`http://127.0.0.1:${instance.port}`, db));
    owner = await ownerWithOrganisation(balancer, { timezone: 'UTC' });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await db?.close();
    await cluster?.stop();
  });

  /** Polls `read` until `done` holds of its answer (the instances' own pollers do the work). */
  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, limitMs = 20_000): Promise<T> {
    const started = Date.now();
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() - started > limitMs) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('twelve bookers racing for one slot of a three-lane resource: exactly three win', async () => {
    const type = await createType(balancer, owner, { name: 'Race' });
    const room = await createResource(balancer, owner, {
      name: 'Three lanes',
      resourceTypeId: type.id,
      capacity: 3,
    });
    const slot = { customer, resourceId: room.id, ...hourSlot(mon, 9) };
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => as(balancer, owner).post('/api/reservations', slot)),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(statuses, [...Array(3).fill(201), ...Array(9).fill(409)]);
    for (const refused of answers.filter((answer) => answer.statusCode === 409))
      assert.equal(refused.json().error.code, 'SLOT_UNAVAILABLE');
    const won = answers.filter((answer) => answer.statusCode === 201).map((answer) => answer.json().id);
    const kept = await db.kysely
      .selectFrom('reservations')
      .select('id')
      .where('id', 'in', won)
      .where('status', '=', 'confirmed')
      .execute();
    assert.equal(kept.length, 3, 'every acknowledged booking is kept');
  });

  test('a hold made on one instance lapses for the others at its expiry: booked on the second, confirm refused on the third', async () => {
    const type = await createType(balancer, owner, { name: 'Holds' });
    const room = await createResource(balancer, owner, { name: 'Held room', resourceTypeId: type.id });
    const slot = { customer, resourceId: room.id, ...hourSlot(mon, 10) };
    const [first, second, third] = instances as [FastifyInstance, FastifyInstance, FastifyInstance];
    const held = expectStatus(
      await as(first, owner).post('/api/reservations/holds', { ...slot, holdSeconds: 600 }),
      201,
    );
    expectStatus(await as(second, owner).post('/api/reservations', slot), 409, 'SLOT_UNAVAILABLE');
    // Its time runs out: the row's expiry moved into the past stands in for ten minutes passing
    // (three processes share no fake clock); no instance is told.
    await db.kysely
      .updateTable('reservations')
      .set({ expiresAt: new Date(Date.now() - 1_000).toISOString() })
      .where('id', '=', held.id)
      .execute();
    const booked = expectStatus(await as(second, owner).post('/api/reservations', slot), 201);
    assert.equal(booked.resourceId, room.id);
    expectStatus(await as(third, owner).post(`/api/reservations/${held.id}/confirm`), 409, 'HOLD_EXPIRED');
    const statuses = await db.kysely
      .selectFrom('reservations')
      .select(['id', 'status'])
      .where('id', 'in', [held.id, booked.id])
      .orderBy('id')
      .execute();
    assert.deepEqual(statuses, [
      { id: held.id, status: 'expired' },
      { id: booked.id, status: 'confirmed' },
    ]);
  });

  test('freed times with a waitlist: each offered once, to the oldest entry, whichever instance notices', async () => {
    const type = await createType(balancer, owner, { name: 'Class', waitlistEnabled: true });
    const room = await createResource(balancer, owner, { name: 'Class room', resourceTypeId: type.id });
    const hours = [8, 9, 10, 11, 12, 13];
    const booked: number[] = [];
    const entries: number[] = [];
    for (const hour of hours) {
      const slot = { resourceId: room.id, ...hourSlot(mon, hour) };
      booked.push(
        expectStatus(await as(balancer, owner).post('/api/reservations', { customer, ...slot }), 201).id,
      );
      for (const n of [1, 2])
        entries.push(
          expectStatus(
            await as(balancer, owner).post('/api/reservations/waitlist', {
              customer: { name: `W${n}`, email: `w${n}-${hour}@example.test` },
              ...slot,
            }),
            201,
          ).id,
        );
    }
    await Promise.all(booked.map((id) => as(balancer, owner).post(`/api/reservations/${id}/cancel`)));
    const offeredEvents = () =>
      db.kysely
        .selectFrom('outboxEvents')
        .select('id')
        .where('type', '=', 'waitlist.offered')
        .where('organisationId', '=', owner.organisationId)
        .execute();
    await until(offeredEvents, (rows) => rows.length >= hours.length);
    // Every instance polls the outbox every 100 ms: a second offer would come within a few rounds.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rows = await db.kysely
      .selectFrom('waitlistEntries')
      .select(['startTime', 'status'])
      .where('id', 'in', entries)
      .orderBy('id')
      .execute();
    for (const hour of hours)
      assert.deepEqual(
        rows.filter((row) => row.startTime === at(mon, hour)).map((row) => row.status),
        ['offered', 'waiting'],
        `${at(mon, hour)}: the oldest entry offered, once`,
      );
    assert.equal((await offeredEvents()).length, hours.length, 'one waitlist.offered per freed time');
  });

  test('bookings through the balancer: each event delivered once to each endpoint, signed', async () => {
    const hooks = webhooksOf(balancer, owner, owner.organisationId);
    const secrets = new Map<string, string>();
    for (const path of ['a', 'b']) {
      const hook = await hooks.created({ url: `${receiver.url}/${path}`, events: ['reservation.created'] });
      secrets.set(`/hooks/${path}`, hook.secret);
    }
    const type = await createType(balancer, owner, { name: 'Hooked' });
    const room = await createResource(balancer, owner, { name: 'Hooked room', resourceTypeId: type.id });
    const count = 9;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        as(balancer, owner).post('/api/reservations', {
          customer,
          resourceId: room.id,
          ...hourSlot(mon, 8 + i),
        }),
      ),
    );
    await until(
      async () => receiver.received.length,
      (n) => n >= 2 * count,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(receiver.received.length, 2 * count, 'no delivery twice');
    for (const [path, secret] of secrets) {
      const arrived = receiver.received.filter((request) => request.path === path);
      assert.equal(new Set(arrived.map((request) => request.headers['webhook-id'])).size, count);
      for (const request of arrived) assert.equal(verified(secret, request).type, 'reservation.created');
    }
  });

  /** An agent of the owner's with a reservations operator's permissions, `policy` and a key. */
  const agentWith = (policy: Record<string, unknown>) =>
    newAgent(balancer, owner, { permissionGroupId: 'reservations_operator', policy });

  test('an approved call runs once, approved on all three instances at once', async () => {
    const agent = await agentWith({ requireApproval: 'writes' });
    const type = await createType(balancer, owner, { name: 'Approved' });
    const room = await createResource(balancer, owner, { name: 'Approved room', resourceTypeId: type.id });
    const args = { customer, resourceId: room.id, ...hourSlot(mon, 14) };
    const asked = await balancer.inject({
      method: 'POST',
      url: '/api/mcp/execute',
      headers: { 'x-agent-key': agent.key },
      payload: { action: 'reservations.create', input: args },
    });
    const { approval } = expectStatus(asked, 200).result as { approval: { id: number } };
    const decisions = await Promise.all(
      [...instances, ...instances].map((instance) =>
        as(instance, owner).post(`/api/approvals/${approval.id}/approve`),
      ),
    );
    for (const decision of decisions) expectStatus(decision, 200);
    const made = await db.kysely
      .selectFrom('reservations')
      .select('id')
      .where('resourceId', '=', room.id)
      .execute();
    assert.equal(made.length, 1, 'the approved booking, once');
    assert.equal(
      expectStatus(await as(balancer, owner).get(`/api/approvals/${approval.id}`), 200).status,
      'executed',
    );
  });

  test('a 2025-era MCP session opened on one instance serves on every other', async () => {
    const agent = await agentWith({});
    const client = new Client(
      { name: 'cluster-test-client', version: '1.0.0' },
      { versionNegotiation: { mode: 'legacy' } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${cluster.url}/api/mcp`), {
      requestInit: { headers: { 'x-agent-key': agent.key } },
    });
    await client.connect(transport);
    try {
      const sessionId = transport.sessionId;
      assert.ok(sessionId, 'a session was opened');
      // Through the balancer: consecutive requests go round the three instances.
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({ name: 'agent_profile', arguments: {} });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal((result.structuredContent as { id: number }).id, agent.id);
      }
      // And named: the same session on each instance's own port.
      for (const instance of cluster.instances) {
        const answer: Response = await fetch(`http://127.0.0.1:${instance.port}/api/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'x-agent-key': agent.key,
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
        });
        assert.equal(answer.status, 200, `${instance.name}: ${await answer.clone().text()}`);
        const text = await answer.text();
        assert.match(text, /"agent_profile"/, `${instance.name} knows the session`);
      }
    } finally {
      await client.close();
    }
  });
});
