import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import type { Db } from '../../../src/db/database.js';
import {
  createTestDatabase,
  databaseForChild,
  killed,
  sharedDatabase,
  startChild,
  TEST_ENV,
} from '../../helpers/app.js';
import { at, createReservation, customer, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import {
  type Receiver,
  type SilentServer,
  startReceiver,
  startSilentServer,
  verified,
  webhooksOf,
} from './helpers.js';

// Attempts give up after 1 s: an endpoint that never answers costs these tests little.
const config = loadConfig({ ...TEST_ENV, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000' });
const mon = futureMonday();

/** Books `count` one-hour slots on a fresh room of the owner's organisation, through `app`. */
async function bookMany(app: FastifyInstance, owner: OrgOwner, count: number) {
  const type = await createType(app, owner, { name: 'Room' });
  const room = await createResource(app, owner, { name: 'Room', resourceTypeId: type.id });
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const day = new Date(mon.getTime() + Math.floor(i / 8) * 86_400_000);
    const reservation = await createReservation(app, owner, {
      resourceId: room.id,
      ...hourSlot(day, 9 + (i % 8)),
    });
    ids.push(reservation.id);
  }
  return ids;
}

describe('webhook delivery across two instances on one PostgreSQL database (racing workers of one on SQLite)', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let drop: () => Promise<void>;
  let receiver: Receiver;
  let silent: SilentServer;
  before(async () => {
    if (process.env.TEST_DATABASE_URL) {
      const shared = await sharedDatabase();
      drop = shared.drop;
      first = await buildApp(config, { db: shared.first, logger: false });
      second = await buildApp(config, { db: shared.second, logger: false });
    } else {
      // SQLite is one instance (one writer): its dispatchers and workers race within it.
      const created = await createTestDatabase();
      drop = created.drop;
      first = await buildApp(config, { db: created.db, logger: false });
      second = first;
    }
    receiver = await startReceiver();
    silent = await startSilentServer();
  });
  after(async () => {
    await first.close();
    if (second !== first) await second.close();
    await drop();
    await receiver.close();
    await silent.close();
  });

  test('both sending to an endpoint that never answers: at most 2 attempts in flight to it, each delivery tried once', async () => {
    const owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const hooks = webhooksOf(first, owner, owner.organisationId);
    const hook = await hooks.created({ url: `${silent.url}/dead`, events: ['reservation.created'] });
    await bookMany(second, owner, 8);
    await first.services.webhooks.dispatch();
    const services = [first.services.webhooks, second.services.webhooks];
    const attempted = await Promise.all(services.flatMap((s) => [s.deliverDue(), s.deliverDue()]));

    assert.equal(silent.mostOpen.get('/dead'), 2);
    assert.equal(silent.arrived.length, 8);
    assert.ok(attempted.every((count) => count <= 8));
    const logged = expectStatus(await hooks.deliveries(hook.id), 200).items;
    assert.deepEqual(
      logged.map((item: { attempts: number; lastError: string }) => [item.attempts, item.lastError]),
      Array(8).fill([1, 'no answer within 1 s']),
    );
  });

  test('both dispatching and sending at once deliver each event once per endpoint, at most 2 in flight to it', async () => {
    const owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const hooks = webhooksOf(first, owner, owner.organisationId);
    const a = await hooks.created({ url: `${receiver.url}/a`, events: ['reservation.created'] });
    const b = await hooks.created({ url: `${receiver.url}/b`, events: ['reservation.created'] });
    // A slow receiver, so attempts of both instances overlap; it notes the most open at once.
    const open = new Map<string, number>();
    const mostOpen = new Map<string, number>();
    receiver.behave((request, response) => {
      const path = request.url!;
      open.set(path, (open.get(path) ?? 0) + 1);
      mostOpen.set(path, Math.max(mostOpen.get(path) ?? 0, open.get(path)!));
      setTimeout(() => {
        open.set(path, open.get(path)! - 1);
        response.writeHead(200).end();
      }, 5);
    });
    const booked = await bookMany(second, owner, 24);
    const services = [first.services.webhooks, second.services.webhooks];
    for (let round = 0; round < 4; round++)
      await Promise.all(
        services.flatMap((s) => [s.dispatch(), s.deliverDue(), s.dispatch(), s.deliverDue()]),
      );
    await Promise.all(services.map((s) => s.deliverDue()));

    for (const [hook, path] of [
      [a, '/hooks/a'],
      [b, '/hooks/b'],
    ] as const) {
      const requests = receiver.received.filter((request) => request.path === path);
      const events = requests.map((request) => verified(hook.secret, request));
      const ids = events.map((event) => event.id);
      assert.equal(ids.length, booked.length, `${path}: one request per booking`);
      assert.equal(new Set(ids).size, booked.length, `${path}: no event twice`);
      assert.ok(mostOpen.get(path)! <= 2, `${path}: at most 2 in flight, saw ${mostOpen.get(path)}`);
      assert.deepEqual(
        events.map((event) => (event.data as { id: number }).id).sort((x, y) => x - y),
        booked,
      );
    }
  });
});

describe('an instance killed with SIGKILL', () => {
  let app: FastifyInstance;
  let db: Db;
  let url: string;
  let schema: string | undefined;
  let drop: () => Promise<void>;
  let receiver: Receiver;
  before(async () => {
    ({ db, url, schema, drop } = await databaseForChild('webhooks-crash'));
    // The instance that stays: it migrates the database before the child starts.
    app = await buildApp(config, { db, logger: false });
    receiver = await startReceiver();
  });
  after(async () => {
    mock.timers.reset();
    await app.close();
    await drop();
    await receiver.close();
  });

  test('after a booking commits and before its delivery: delivered once the service runs again', async () => {
    const owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const hook = await webhooksOf(app, owner, owner.organisationId).created({
      url: receiver.url,
      events: ['reservation.created'],
    });
    const { child, url: childUrl } = await startChild(url, schema, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    const type = await createType(app, owner, { name: 'Room' });
    const room = await createResource(app, owner, { name: 'Room', resourceTypeId: type.id });
    const response = await fetch(`${childUrl}/api/reservations`, {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ customer, resourceId: room.id, startTime: at(mon, 9), endTime: at(mon, 10) }),
    });
    assert.equal(response.status, 201);
    const booked = (await response.json()) as { id: number };
    await killed(child);
    assert.equal(receiver.received.length, 0);

    await app.services.webhooks.dispatch();
    await app.services.webhooks.deliverDue();
    assert.equal(receiver.received.length, 1);
    const event = verified(hook.secret, receiver.received[0]!);
    assert.equal(event.type, 'reservation.created');
    assert.equal((event.data as { id: number }).id, booked.id);
    await webhooksOf(app, owner, owner.organisationId).delete(hook.id);
    receiver.received.length = 0;
  });

  test('in the middle of an attempt: sent again once its lease runs out, with the same webhook-id', async () => {
    const owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const hooks = webhooksOf(app, owner, owner.organisationId);
    const hook = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    const { child, url: childUrl } = await startChild(url, schema, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    // The child's attempt reaches the receiver, which never answers it.
    const hanging: Array<() => void> = [];
    receiver.behave((_request, response) => hanging.push(() => response.destroy()));
    const ping = await fetch(
      `${childUrl}/api/organisations/${owner.organisationId}/webhooks/${hook.id}/test`,
      {
        method: 'POST',
        headers: owner.auth,
      },
    );
    assert.equal(ping.status, 202);
    const delivery = (await ping.json()) as { id: number; eventId: string };
    while (receiver.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await killed(child);
    for (const release of hanging) release();

    receiver.behave((_request, response) => response.writeHead(200).end());
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    assert.equal(await app.services.webhooks.deliverDue(), 0, 'the dead attempt holds its lease');
    mock.timers.tick(60_000);
    assert.equal(await app.services.webhooks.deliverDue(), 1);
    assert.equal(receiver.received.length, 2);
    assert.deepEqual(
      receiver.received.map((request) => request.headers['webhook-id']),
      [delivery.eventId, delivery.eventId],
    );
    assert.equal(verified(hook.secret, receiver.received[1]!).type, 'webhook.test');
    const logged = expectStatus(await hooks.deliveries(hook.id), 200).items[0];
    assert.deepEqual([logged.id, logged.status, logged.attempts], [delivery.id, 'succeeded', 1]);
  });
});
