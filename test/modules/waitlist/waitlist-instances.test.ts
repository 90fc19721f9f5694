import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

const config = loadConfig(TEST_ENV);
const mon = futureMonday();
const slot = (roomId: number, hour: number) => ({
  resourceId: roomId,
  startTime: at(mon, hour),
  endTime: at(mon, hour + 1),
});

/** A waitlisted room with `hours` booked by the owner and two entries waiting for each. */
async function fullRoom(app: FastifyInstance, owner: OrgOwner, hours: number[]) {
  const type = await createType(app, owner, { name: 'Class', waitlistEnabled: true });
  const room = await createResource(app, owner, { name: 'Class room', resourceTypeId: type.id });
  const booked: number[] = [];
  for (const hour of hours)
    booked.push(
      expectStatus(await as(app, owner).post('/api/reservations', { customer, ...slot(room.id, hour) }), 201)
        .id,
    );
  const entries: Array<{ id: number; hour: number }> = [];
  for (const n of [1, 2])
    for (const hour of hours) {
      const joined = expectStatus(
        await as(app, owner).post('/api/reservations/waitlist', {
          customer: { name: `W${n}`, email: `w${n}-${hour}@example.test` },
          ...slot(room.id, hour),
        }),
        201,
      );
      entries.push({ id: joined.id, hour });
    }
  return { room, booked, entries };
}

describe('waitlist offers across two instances on one PostgreSQL database (racing runs of one on SQLite)', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    if (process.env.TEST_DATABASE_URL) {
      const shared = await sharedDatabase();
      drop = shared.drop;
      db = shared.first;
      first = await buildApp(config, { db: shared.first, logger: false });
      second = await buildApp(config, { db: shared.second, logger: false });
    } else {
      const created = await createTestDatabase();
      drop = created.drop;
      db = created.db;
      first = await buildApp(config, { db: created.db, logger: false });
      second = first;
    }
  });
  after(async () => {
    await first.close();
    if (second !== first) await second.close();
    await drop();
  });

  test('the same freed times, cancelled and offered by both at once, are each offered once', async () => {
    const owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const hours = [8, 9, 10, 11, 12, 13];
    const { booked, entries } = await fullRoom(first, owner, hours);
    const runs = () =>
      [first, second].flatMap((app) => [app, app].map((a) => a.services.waitlist.processOffers()));
    // Every cancel through one instance or the other, while both run their consumers.
    await Promise.all([
      ...booked.map((id, i) => as(i % 2 ? second : first, owner).post(`/api/reservations/${id}/cancel`)),
      ...runs(),
    ]);
    for (let round = 0; round < 3; round++) await Promise.all(runs());
    // Each freed time is run for until nothing is left: a run that found the lease held offered nothing.
    while ((await first.services.waitlist.processOffers()).events > 0);

    const rows = await db.kysely
      .selectFrom('waitlistEntries')
      .select(['id', 'status', 'startTime', 'offerReservationId'])
      .where(
        'id',
        'in',
        entries.map((e) => e.id),
      )
      .orderBy('id')
      .execute();
    for (const hour of hours) {
      const forHour = rows.filter((r) => r.startTime === at(mon, hour));
      assert.deepEqual(
        forHour.map((r) => r.status),
        ['offered', 'waiting'],
        `${at(mon, hour)}: the oldest entry offered, once`,
      );
    }
    const offered = await db.kysely
      .selectFrom('outboxEvents')
      .select('data')
      .where('type', '=', 'waitlist.offered')
      .execute();
    assert.equal(offered.length, hours.length, 'one waitlist.offered per freed time');
    const held = await db.kysely
      .selectFrom('reservations')
      .select('id')
      .where('status', '=', 'held')
      .execute();
    assert.equal(held.length, hours.length, 'one hold per freed time');
  });
});

describe('an instance killed with SIGKILL between a cancel and its offer', () => {
  let app: FastifyInstance;
  let db: Db;
  let url: string;
  let schema: string | undefined;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, url, schema, drop } = await databaseForChild('waitlist-crash'));
    // The instance that stays (the service as it runs again): it migrates before the child starts.
    app = await buildApp(config, { db, logger: false });
  });
  after(async () => {
    await app.close();
    await drop();
  });

  test('the freed time is offered once the service runs again', async () => {
    const owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const { booked, entries } = await fullRoom(app, owner, [14]);
    const { child, url: childUrl } = await startChild(url, schema);
    const response = await fetch(`${childUrl}/api/reservations/${booked[0]}/cancel`, {
      method: 'POST',
      headers: owner.auth,
    });
    assert.equal(response.status, 200);
    await killed(child);
    const entry = () => as(app, owner).get(`/api/reservations/waitlist/${entries[0]!.id}`);
    assert.equal(expectStatus(await entry(), 200).status, 'waiting', 'the dead instance made no offer');

    const { offered } = await app.services.waitlist.processOffers();
    assert.equal(offered, 1);
    const after = expectStatus(await entry(), 200);
    assert.equal(after.status, 'offered');
    assert.equal(
      expectStatus(await as(app, owner).get(`/api/reservations/${after.offer.reservationId}`), 200).status,
      'held',
    );
    assert.equal((await app.services.waitlist.processOffers()).offered, 0, 'and only once');
  });
});
