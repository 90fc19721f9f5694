import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../../src/db/database.js';
import { AnswerCache } from '../../../src/lib/answer-cache.js';
import { VERSION_SHARDS } from '../../../src/modules/availability/migrations/0044_version_shards.js';
import {
  createTestApp,
  registerUser,
  type TestApp,
  testDatabaseUrl,
  twoInstances,
} from '../../helpers/app.js';
import { at, createReservation, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { resourceAnswer, typeAnswer } from './availability-reference/answers.js';

// The availability answer cache (issue 14) is labelled with a per-type version that
// database triggers raise. After every kind of write, whoever writes it (this instance,
// another instance on the same database, direct SQL), the next answer must equal a
// fresh computation by the frozen reference engine.

const monday = futureMonday();
const from = at(monday, 0);
const to = at(monday, 24 * 5);
const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
const hours = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
  dayOfWeek,
  openTime: '08:00',
  closeTime: '20:00',
}));

function reservationRow(owner: OrgOwner, typeId: number, laneId: number, start: string, end: string) {
  const now = new Date().toISOString();
  return {
    organisationId: owner.organisationId,
    resourceTypeId: typeId,
    resourceId: laneId,
    status: 'confirmed' as const,
    startTime: start,
    endTime: end,
    customerName: 'Direct',
    customerEmail: 'direct@example.test',
    customerPhone: null,
    customerInfo: '{}',
    notes: null,
    priceAmount: null,
    priceCurrency: null,
    source: 'api' as const,
    createdByUserId: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** An organisation with one bookable room, open the week's `hours`. */
async function organisationWithRoom(app: FastifyInstance) {
  const owner = await ownerWithOrganisation(app);
  const type = (
    await createType(app, owner, {
      bookingMode: 'SINGLE_RESOURCE',
      schedulePolicy: { operatingHours: hours },
    })
  ).id;
  const room = (await createResource(app, owner, { name: 'Room', resourceTypeId: type, capacity: 1 })).id;
  return { owner, type, room };
}

async function lanesOf(db: Db, resourceId: number) {
  const rows = await db.kysely
    .selectFrom('resources')
    .select('id')
    .where('parentResourceId', '=', resourceId)
    .orderBy('capacityLaneIndex')
    .execute();
  return rows.map((row) => row.id);
}

/** Every type and resource answer of the organisation, through `app`, against the reference. */
async function assertFresh(app: FastifyInstance, db: Db, owner: OrgOwner, context: string) {
  const types = await db.kysely
    .selectFrom('resourceTypes')
    .select('id')
    .where('organisationId', '=', owner.organisationId)
    .execute();
  const resources = await db.kysely
    .selectFrom('resources')
    .select('id')
    .where('organisationId', '=', owner.organisationId)
    .execute();
  for (const { id } of types) {
    const r = await app.inject({
      method: 'GET',
      url: `/api/resource-types/${id}/availability?${query}`,
      headers: owner.auth,
    });
    assert.equal(r.statusCode, 200, r.body);
    const expected = JSON.stringify(await typeAnswer(db, owner.organisationId, id, from, to));
    assert.equal(r.body, expected, `${context}: type ${id}`);
  }
  for (const { id } of resources) {
    const r = await app.inject({
      method: 'GET',
      url: `/api/resources/${id}/availability?${query}`,
      headers: owner.auth,
    });
    assert.equal(r.statusCode, 200, r.body);
    const expected = JSON.stringify(await resourceAnswer(db, owner.organisationId, id, from, to));
    assert.equal(r.body, expected, `${context}: resource ${id}`);
  }
}

describe('availability cache: exact after every kind of write, across instances', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let db: Db;
  let close: () => Promise<void>;
  let owner: OrgOwner;
  let desks: number;
  let rooms: number;
  let pod: number;
  let room: number;

  before(async () => {
    ({ first, second, db, close } = await twoInstances());
    owner = await ownerWithOrganisation(first, { timezone: 'Europe/Berlin' });
    desks = (
      await createType(first, owner, {
        name: 'Desks',
        bookingMode: 'BOTH',
        minBookingDuration: 30,
        bufferTime: 15,
        schedulePolicy: { operatingHours: hours },
      })
    ).id;
    rooms = (
      await createType(first, owner, {
        name: 'Rooms',
        bookingMode: 'SINGLE_RESOURCE',
        minBookingDuration: 60,
        schedulePolicy: { operatingHours: hours },
      })
    ).id;
    pod = (await createResource(first, owner, { name: 'Pod', resourceTypeId: desks, capacity: 3 })).id;
    room = (await createResource(first, owner, { name: 'Room', resourceTypeId: rooms, capacity: 1 })).id;
    // Warm both instances' caches.
    await assertFresh(first, db, owner, 'seeded');
    await assertFresh(second, db, owner, 'seeded, second instance');
  });

  after(() => close());

  test('a booking through the API, and its cancellation', async () => {
    const booked = await createReservation(first, owner, {
      resourceTypeId: desks,
      startTime: at(monday, 9),
      endTime: at(monday, 11),
    });
    await assertFresh(first, db, owner, 'after a booking');
    await assertFresh(second, db, owner, 'after a booking, second instance');
    const cancel = await first.inject({
      method: 'POST',
      url: `/api/reservations/${booked.id}/cancel`,
      headers: owner.auth,
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    await assertFresh(first, db, owner, 'after a cancellation');
    await assertFresh(second, db, owner, 'after a cancellation, second instance');
  });

  test('a booking through another instance', async () => {
    await createReservation(second, owner, {
      resourceId: room,
      startTime: at(monday, 24 + 10),
      endTime: at(monday, 24 + 12),
    });
    await assertFresh(first, db, owner, 'after a booking on the second instance');
    await createReservation(second, owner, {
      resourceTypeId: desks,
      startTime: at(monday, 24 + 13),
      endTime: at(monday, 24 + 14),
    });
    await assertFresh(first, db, owner, 'after a pool booking on the second instance');
  });

  test('reservations inserted, updated and deleted by direct SQL', async () => {
    const [lane] = await lanesOf(db, pod);
    const { id } = (await db.kysely
      .insertInto('reservations')
      .values(reservationRow(owner, desks, lane!, at(monday, 48 + 9), at(monday, 48 + 10)))
      .returning('id')
      .executeTakeFirstOrThrow()) as { id: number };
    await assertFresh(first, db, owner, 'after a direct insert');
    await db.kysely
      .updateTable('reservations')
      .set({ startTime: at(monday, 48 + 15), endTime: at(monday, 48 + 17) })
      .where('id', '=', id)
      .execute();
    await assertFresh(first, db, owner, 'after a direct update of its time');
    await db.kysely.updateTable('reservations').set({ status: 'cancelled' }).where('id', '=', id).execute();
    await assertFresh(first, db, owner, 'after a direct cancellation');
    await db.kysely.updateTable('reservations').set({ status: 'confirmed' }).where('id', '=', id).execute();
    await assertFresh(first, db, owner, 'after a direct reinstatement');
    await db.kysely.deleteFrom('reservations').where('id', '=', id).execute();
    await assertFresh(first, db, owner, 'after a direct delete');
    // A reservation whose type column names another type still counts on its lane.
    await db.kysely
      .insertInto('reservations')
      .values(reservationRow(owner, rooms, lane!, at(monday, 72 + 9), at(monday, 72 + 10)))
      .execute();
    await assertFresh(first, db, owner, 'after a direct insert naming another type');
  });

  test('resources: created, changed, moved to another type, deleted', async () => {
    const extra = (await createResource(second, owner, { name: 'Extra', resourceTypeId: desks, capacity: 2 }))
      .id;
    await assertFresh(first, db, owner, 'after a resource is created');
    const patch = async (id: number, payload: Record<string, unknown>) => {
      const r = await second.inject({
        method: 'PATCH',
        url: `/api/resources/${id}`,
        headers: owner.auth,
        payload,
      });
      assert.equal(r.statusCode, 200, r.body);
    };
    await patch(extra, {
      schedulePolicy: { operatingHours: hours.map((h) => ({ ...h, openTime: '10:00' })) },
    });
    await assertFresh(first, db, owner, 'after a resource schedule change');
    await patch(extra, { isActive: false });
    await assertFresh(first, db, owner, 'after a resource is deactivated');
    await patch(extra, { isActive: true, resourceTypeId: rooms });
    await assertFresh(first, db, owner, 'after a resource moves to another type');
    // A lane changed by direct SQL: its parent's type's answers change.
    const [, lane] = await lanesOf(db, pod);
    await db.kysely.updateTable('resources').set({ isActive: false }).where('id', '=', lane!).execute();
    await assertFresh(first, db, owner, 'after a lane is deactivated directly');
    await db.kysely.updateTable('resources').set({ isActive: true }).where('id', '=', lane!).execute();
    const removed = await second.inject({
      method: 'DELETE',
      url: `/api/resources/${extra}/cascade`,
      headers: owner.auth,
    });
    assert.ok([200, 204].includes(removed.statusCode), removed.body);
    await assertFresh(first, db, owner, 'after a resource is deleted');
  });

  test('the type and the organisation change', async () => {
    const type = await second.inject({
      method: 'PATCH',
      url: `/api/resource-types/${desks}`,
      headers: owner.auth,
      payload: { bufferTime: 45, minBookingDuration: 90 },
    });
    assert.equal(type.statusCode, 200, type.body);
    await assertFresh(first, db, owner, 'after a type change');
    const org = await second.inject({
      method: 'PATCH',
      url: `/api/organisations/${owner.organisationId}`,
      headers: owner.auth,
      payload: { timezone: 'America/New_York' },
    });
    assert.equal(org.statusCode, 200, org.body);
    await assertFresh(first, db, owner, 'after an organisation time zone change');
    const policy = await second.inject({
      method: 'PATCH',
      url: `/api/organisations/${owner.organisationId}`,
      headers: owner.auth,
      payload: { schedulePolicy: { availabilityMode: 'shifts' } },
    });
    assert.equal(policy.statusCode, 200, policy.body);
    await assertFresh(first, db, owner, 'after an organisation schedule change');
  });

  test('the tenant check runs on every answer, cached or not', async () => {
    const url = `/api/resource-types/${desks}/availability?${query}`;
    const own = await first.inject({ method: 'GET', url, headers: owner.auth });
    assert.equal(own.statusCode, 200);
    const stranger = await ownerWithOrganisation(first);
    const theirs = await first.inject({ method: 'GET', url, headers: stranger.auth });
    assert.equal(theirs.statusCode, 404, theirs.body);
    const resource = await first.inject({
      method: 'GET',
      url: `/api/resources/${pod}/availability?${query}`,
      headers: stranger.auth,
    });
    assert.equal(resource.statusCode, 404, resource.body);
    const nobody = await registerUser(first, 'Nobody');
    const none = await first.inject({ method: 'GET', url, headers: nobody.auth });
    assert.equal(none.statusCode, 409, none.body);
    const member = await memberWithRole(first, owner, 'MEMBER');
    const asMember = await first.inject({ method: 'GET', url, headers: member.auth });
    assert.equal(asMember.body, own.body);
  });
});

describe('availability cache: the triggers are what keeps it exact', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('without the trigger on reservation inserts, a direct insert leaves a stale answer', async () => {
    const { owner, type, room } = await organisationWithRoom(t.app);
    const url = `/api/resource-types/${type}/availability?${query}`;
    const before = await t.app.inject({ method: 'GET', url, headers: owner.auth });
    assert.equal(before.body, JSON.stringify(await typeAnswer(t.db, owner.organisationId, type, from, to)));
    const triggers =
      t.db.dialect === 'postgres'
        ? ['drop trigger availability_reservations_insert on reservations']
        : ['drop trigger availability_reservations_insert_new'];
    for (const statement of triggers) await sql.raw(statement).execute(t.db.kysely);
    await t.db.kysely
      .insertInto('reservations')
      .values(reservationRow(owner, type, room, at(monday, 9), at(monday, 12)))
      .execute();
    const fresh = JSON.stringify(await typeAnswer(t.db, owner.organisationId, type, from, to));
    assert.notEqual(fresh, before.body, 'the insert changes the answer');
    const after = await t.app.inject({ method: 'GET', url, headers: owner.auth });
    assert.equal(after.body, before.body, 'the cache answers as before: nothing told it');
  });
});

describe('AnswerCache', () => {
  test('concurrent misses share one computation; failures are not stored', async () => {
    const cache = new AnswerCache<number[]>(100, (v) => v.length);
    let runs = 0;
    const compute = async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return [1, 2, 3];
    };
    const answers = await Promise.all([
      cache.get('a', compute),
      cache.get('a', compute),
      cache.get('a', compute),
    ]);
    assert.equal(runs, 1);
    assert.ok(answers.every((a) => a === answers[0]));
    await assert.rejects(
      cache.get('b', async () => {
        throw new Error('boom');
      }),
    );
    assert.deepEqual(await cache.get('b', async () => [4]), [4]);
  });

  test('the least recently used answers go first once the weight is exceeded', async () => {
    const cache = new AnswerCache<number[]>(10, (v) => v.length);
    const of = (n: number) => async () => new Array<number>(n).fill(n);
    await cache.get('a', of(3)); // weight 4
    await cache.get('b', of(3)); // weight 4
    await cache.get('a', of(0)); // a is now the most recent
    await cache.get('c', of(1)); // weight 2: 10 in all
    assert.equal(cache.size, 3);
    await cache.get('d', of(1)); // 12: b (least recent) goes
    assert.deepEqual(await cache.get('a', of(9)), [3, 3, 3]);
    assert.deepEqual(await cache.get('b', of(2)), [2, 2]);
    // Too heavy for the whole cache: answered, not stored.
    await cache.get('huge', of(50));
    assert.deepEqual(await cache.get('huge', of(1)), [1]);
  });
});

// PostgreSQL spreads a type's version over rows, one a connection's shard (migration
// 0044): a row locked from a commit's version raise until its flush would queue every
// change of the type behind the one before it.
if (process.env.TEST_DATABASE_URL) {
  describe('PostgreSQL: a type changed by two connections at once', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp();
    });
    after(() => t.close());

    /** A connection of its own in the test's schema, and its version shard. */
    async function connection() {
      const client = new pg.Client({ connectionString: testDatabaseUrl(t.db) });
      await client.connect();
      await client.query(`set search_path to ${t.db.schema}`);
      const { rows } = await client.query<{ shard: number }>(
        `select pg_backend_pid() % ${VERSION_SHARDS} as shard`,
      );
      return { client, shard: rows[0]!.shard };
    }

    test('neither waits for the other; the cached answer then counts both', async () => {
      const { owner, type, room } = await organisationWithRoom(t.app);
      const url = `/api/resource-types/${type}/availability?${query}`;
      const cached = await t.app.inject({ method: 'GET', url, headers: owner.auth });
      assert.equal(cached.statusCode, 200);

      // Two connections on different shards, as most of a pool's are.
      const first = await connection();
      const opened = [first];
      let second = await connection();
      while (second.shard === first.shard) {
        opened.push(second);
        second = await connection();
      }
      opened.push(second);
      try {
        const insert = (start: string, end: string) =>
          t.db.kysely
            .insertInto('reservations')
            .values(reservationRow(owner, type, room, start, end))
            .compile();
        for (const { client } of [first, second]) {
          // The version raise runs now rather than at commit, so it holds its row while the
          // transaction stays open, as it does during a commit's flush.
          await client.query('begin');
          await client.query('set constraints all immediate');
          await client.query("set local statement_timeout = '5s'");
        }
        const morning = insert(at(monday, 9), at(monday, 10));
        await first.client.query(morning.sql, [...morning.parameters]);
        const noon = insert(at(monday, 12), at(monday, 13));
        // With one row a type this waits for the first transaction and times out.
        await second.client.query(noon.sql, [...noon.parameters]);
        await first.client.query('commit');
        await second.client.query('commit');
      } finally {
        for (const { client } of opened) await client.end();
      }

      const fresh = JSON.stringify(await typeAnswer(t.db, owner.organisationId, type, from, to));
      assert.notEqual(fresh, cached.body, 'the inserts change the answer');
      const answered = await t.app.inject({ method: 'GET', url, headers: owner.auth });
      assert.equal(answered.body, fresh);
    });
  });
}
