// Webhook delivery shared fairly (DECISIONS.md "What the review found, decided"): at most 2
// attempts in flight per endpoint, so one organisation's endpoints that never answer cost
// only their own queues and never hold another organisation's delivery back; a test ping at
// most 10 a minute per endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import {
  createTestApp,
  createTestDatabase,
  sharedDatabase,
  TEST_ENV,
  type TestApp,
} from '../../helpers/app.js';
import { createReservation, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { eventually } from '../../helpers/wait.js';
import {
  type Receiver,
  type SilentServer,
  startReceiver,
  startSilentServer,
  verified,
  webhooksOf,
} from './helpers.js';

const mon = futureMonday();

/** Books `count` one-hour slots on a fresh room of the owner's organisation, alternating instances. */
async function bookMany(apps: FastifyInstance[], owner: OrgOwner, count: number, pauseMs = 0) {
  const type = await createType(apps[0]!, owner, { name: 'Room' });
  const room = await createResource(apps[0]!, owner, { name: 'Room', resourceTypeId: type.id });
  for (let i = 0; i < count; i++) {
    const day = new Date(mon.getTime() + Math.floor(i / 8) * 86_400_000);
    await createReservation(apps[i % apps.length]!, owner, {
      resourceId: room.id,
      ...hourSlot(day, 9 + (i % 8)),
    });
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

describe('fair webhook delivery (two instances on one PostgreSQL; one on SQLite)', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let drop: () => Promise<void>;
  let receiver: Receiver;
  let silent: SilentServer;
  before(async () => {
    receiver = await startReceiver();
    silent = await startSilentServer();
    // The real path: each instance looks for new events every 50 ms; attempts give up after 1 s.
    const config = loadConfig({
      ...TEST_ENV,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      OUTBOX_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    if (process.env.TEST_DATABASE_URL) {
      const shared = await sharedDatabase();
      drop = shared.drop;
      first = await buildApp(config, { db: shared.first, logger: false });
      second = await buildApp(config, { db: shared.second, logger: false });
      await second.ready();
    } else {
      // SQLite is one instance (one writer).
      const created = await createTestDatabase();
      drop = created.drop;
      first = await buildApp(config, { db: created.db, logger: false });
      second = first;
    }
    await first.ready();
  });
  after(async () => {
    await first.close();
    if (second !== first) await second.close();
    await drop();
    await receiver.close();
    await silent.close();
  });

  test("a neighbour's 20 endpoints that never answer hold back no other organisation's delivery", async () => {
    const neighbour = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const dead = webhooksOf(first, neighbour, neighbour.organisationId);
    const deadHooks: number[] = [];
    for (let i = 0; i < 20; i++)
      deadHooks.push(
        (await dead.created({ url: `${silent.url}/dead/${i}`, events: ['reservation.created'] })).id,
      );
    const healthy = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const hook = await webhooksOf(first, healthy, healthy.organisationId).created({
      url: receiver.url,
      events: ['reservation.created'],
    });
    const arrivedAt: number[] = [];
    receiver.behave((_request, response, index) => {
      arrivedAt[index] = Date.now();
      response.writeHead(204).end();
    });

    await bookMany([first, second], neighbour, 10);
    await eventually(() => silent.arrived.length >= 20, 3_000, "the neighbour's endpoints being tried");
    await bookMany([first, second], healthy, 3, 300);
    await eventually(() => receiver.received.length >= 3, 6_000, "the healthy endpoint's three deliveries");
    for (const [index, request] of receiver.received.entries()) {
      const event = verified(hook.secret, request);
      const latency = arrivedAt[index]! - Date.parse(event.occurredAt as string);
      assert.ok(latency < 2_000, `delivered ${latency} ms after its event`);
    }

    // The neighbour's own queues: every delivery tried once, at most 2 at a time per endpoint,
    // each cut at the timeout and waiting for its retry.
    const logs = async () =>
      (await Promise.all(deadHooks.map((id) => dead.deliveries(id)))).flatMap(
        (response) => expectStatus(response, 200).items as Array<Record<string, unknown>>,
      );
    await eventually(
      async () => (await logs()).filter((item) => item.attempts === 1).length === 200,
      15_000,
      "the neighbour's 200 deliveries tried",
    );
    for (const [path, most] of silent.mostOpen) assert.ok(most <= 2, `${most} requests at once to ${path}`);
    for (let i = 0; i < 20; i++) {
      const requests = silent.arrived.filter((path) => path === `/dead/${i}`).length;
      assert.ok(requests <= 10, `${requests} requests to /dead/${i}: none twice`);
    }
    for (const item of await logs()) {
      assert.deepEqual([item.status, item.lastError], ['pending', 'no answer within 1 s']);
      const wait = Date.parse(item.nextAttemptAt as string) - Date.parse(item.createdAt as string);
      assert.ok(wait >= 30_000, `the first retry 30 s after the attempt (${wait} ms after the delivery)`);
    }
  });
});

describe('a test ping', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
  });
  after(async () => {
    mock.timers.reset();
    await receiver.close();
    await t.close();
  });

  test('at most 10 a minute per endpoint: the 11th answers 429 RATE_LIMITED', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const hooks = webhooksOf(t.app, owner, owner.organisationId);
    const pinged = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    const other = await hooks.created({ url: `${receiver.url}/other`, events: ['reservation.created'] });
    for (let i = 0; i < 10; i++) expectStatus(await hooks.test(pinged.id), 202);
    const eleventh = await hooks.test(pinged.id);
    const refused = expectError(eleventh, 429, 'RATE_LIMITED');
    assert.match(refused.message, /10 test pings a minute/);
    const retryAfter = Number(eleventh.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    expectStatus(await hooks.test(other.id), 202);
    await t.app.jobs.idle();
    assert.equal(receiver.received.length, 11, 'the refused ping was not sent');
    mock.timers.tick(60_000);
    expectStatus(await hooks.test(pinged.id), 202);
  });
});
