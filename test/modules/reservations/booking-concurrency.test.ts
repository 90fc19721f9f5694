import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createReservationRepo } from '../../../src/modules/reservations/repo.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

// Booking takes no lock on its type: SQLite books in one transaction on its only
// connection, PostgreSQL lets an exclusion constraint refuse the loser of a race. These
// races check that the buffer and cancellations hold under concurrency too.
describe('concurrent bookings', () => {
  let t: TestApp;
  let owner: OrgOwner;
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
  });
  after(() => t.close());

  test('the buffer holds in a race: back-to-back slots on one lane, only one of them books', async () => {
    const type = await createType(t.app, owner, {
      bookingMode: 'POOL',
      minBookingDuration: 30,
      bufferTime: 30,
    });
    await createResource(t.app, owner, { name: 'Solo', resourceTypeId: type.id, capacity: 1 });
    const mon = futureMonday();
    // 10:00-11:00 and 11:00-12:00 touch: the 30-minute buffer lets only one of them stand.
    const slots = [
      { startTime: at(mon, 10), endTime: at(mon, 11) },
      { startTime: at(mon, 11), endTime: at(mon, 12) },
    ];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => book(t.app, owner, { resourceTypeId: type.id, ...slots[i % 2] })),
    );
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 1, JSON.stringify(codes));
    assert.equal(codes.filter((c) => c === 409).length, 29);
    for (const r of results.filter((r) => r.statusCode === 409))
      assert.equal(r.json().error.code, 'SLOT_UNAVAILABLE');
    // Exactly the buffer away from the stored one fits.
    const [won] = results.filter((r) => r.statusCode === 201).map((r) => r.json());
    const clear =
      won.startTime === slots[0]!.startTime
        ? { startTime: at(mon, 11, 30), endTime: at(mon, 12, 30) }
        : { startTime: at(mon, 9, 30), endTime: at(mon, 10, 30) };
    assert.equal((await book(t.app, owner, { resourceTypeId: type.id, ...clear })).statusCode, 201);
  });

  test('a lowered buffer frees its time at once: what availability offers, booking books', async () => {
    const type = await createType(t.app, owner, {
      bookingMode: 'POOL',
      minBookingDuration: 30,
      bufferTime: 60,
    });
    await createResource(t.app, owner, { name: 'Lowered', resourceTypeId: type.id, capacity: 1 });
    const mon = futureMonday();
    assert.equal(
      (await book(t.app, owner, { resourceTypeId: type.id, startTime: at(mon, 10), endTime: at(mon, 11) }))
        .statusCode,
      201,
    );
    const lowered = await t.app.inject({
      method: 'PATCH',
      url: `/api/resource-types/${type.id}`,
      headers: owner.auth,
      payload: { bufferTime: 0 },
    });
    assert.equal(lowered.statusCode, 200, lowered.body);
    const right = { startTime: at(mon, 11), endTime: at(mon, 12) };
    const offered = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${type.id}/availability?from=${encodeURIComponent(right.startTime)}&to=${encodeURIComponent(right.endTime)}`,
      headers: owner.auth,
    });
    assert.equal(offered.statusCode, 200, offered.body);
    assert.equal(offered.json().pool.windows[0]?.freeLanes, 1);
    // The reservation booked under the old buffer keeps no time beyond the new one.
    const booked = await book(t.app, owner, { resourceTypeId: type.id, ...right });
    assert.equal(booked.statusCode, 201, booked.body);
  });

  for (const scope of ['resource', 'resource type', 'organisation'] as const) {
    test(`a switch to shift mode (on the ${scope}) frees the buffer kept after earlier reservations`, async () => {
      const org = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
      const type = await createType(t.app, org, {
        bookingMode: 'BOTH',
        minBookingDuration: 30,
        bufferTime: 60,
      });
      const resource = await createResource(t.app, org, {
        name: 'Switched',
        resourceTypeId: type.id,
        capacity: 2,
      });
      const mon = futureMonday();
      for (let lane = 0; lane < 2; lane++) {
        const early = await book(t.app, org, {
          resourceId: resource.id,
          startTime: at(mon, 10),
          endTime: at(mon, 11),
        });
        assert.equal(early.statusCode, 201, early.body);
      }
      const shifts = {
        availabilityMode: 'shifts',
        shiftSchedule: [
          {
            dayOfWeek: 1,
            slots: [
              { startTime: '10:00', endTime: '11:00' },
              { startTime: '11:00', endTime: '12:00' },
            ],
          },
        ],
      };
      const url = {
        resource: `/api/resources/${resource.id}`,
        'resource type': `/api/resource-types/${type.id}`,
        organisation: `/api/organisations/${org.organisationId}`,
      }[scope];
      const switched = await t.app.inject({
        method: 'PATCH',
        url,
        headers: org.auth,
        payload: { schedulePolicy: shifts },
      });
      assert.equal(switched.statusCode, 200, switched.body);
      const next = { startTime: at(mon, 11), endTime: at(mon, 12) };
      const offered = await t.app.inject({
        method: 'GET',
        url: `/api/resources/${resource.id}/availability?from=${encodeURIComponent(next.startTime)}&to=${encodeURIComponent(next.endTime)}`,
        headers: org.auth,
      });
      assert.equal(offered.statusCode, 200, offered.body);
      assert.equal(offered.json().slots[0]?.freeLanes, 2, offered.body);
      // Shift lanes keep no buffer: what availability offers, booking books, on every lane.
      for (let lane = 0; lane < 2; lane++) {
        const booked = await book(t.app, org, { resourceId: resource.id, ...next });
        assert.equal(booked.statusCode, 201, booked.body);
      }
    });
  }

  test('a cancelled reservation does not block: racing for its freed time books exactly one', async () => {
    const type = await createType(t.app, owner, { bookingMode: 'POOL', bufferTime: 15 });
    await createResource(t.app, owner, { name: 'Freed', resourceTypeId: type.id, capacity: 1 });
    const mon = futureMonday();
    const slot = { resourceTypeId: type.id, startTime: at(mon, 14), endTime: at(mon, 15) };
    const first = await book(t.app, owner, slot);
    assert.equal(first.statusCode, 201);
    assert.equal((await book(t.app, owner, slot)).statusCode, 409);
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${first.json().id}/cancel`,
      headers: owner.auth,
    });
    assert.equal(cancelled.statusCode, 200);
    const results = await Promise.all(Array.from({ length: 20 }, () => book(t.app, owner, slot)));
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 1, JSON.stringify(codes));
    assert.equal(codes.filter((c) => c === 409).length, 19);
  });

  test('a race over a pool of 4 lanes with three slot lengths: no lane ever holds overlapping time', async () => {
    const type = await createType(t.app, owner, {
      bookingMode: 'POOL',
      minBookingDuration: 30,
      bufferTime: 10,
    });
    await createResource(t.app, owner, { name: 'Pool', resourceTypeId: type.id, capacity: 4 });
    const mon = futureMonday();
    const asks = Array.from({ length: 60 }, (_, i) => {
      const startMinutes = 8 * 60 + (i % 6) * 25;
      const length = [30, 60, 90][i % 3]!;
      return {
        resourceTypeId: type.id,
        startTime: at(mon, 0, startMinutes),
        endTime: at(mon, 0, startMinutes + length),
      };
    });
    const results = await Promise.all(asks.map((ask) => book(t.app, owner, ask)));
    assert.ok(results.every((r) => r.statusCode === 201 || r.statusCode === 409));
    const booked = results.filter((r) => r.statusCode === 201).map((r) => r.json());
    assert.ok(booked.length >= 4, `at least one per lane, got ${booked.length}`);
    const byLane = new Map<number, Array<{ start: number; end: number }>>();
    for (const r of booked) {
      const lane = byLane.get(r.resourceId) ?? [];
      lane.push({ start: Date.parse(r.startTime), end: Date.parse(r.endTime) });
      byLane.set(r.resourceId, lane);
    }
    for (const [lane, reservations] of byLane) {
      const sorted = reservations.sort((a, b) => a.start - b.start);
      for (let i = 1; i < sorted.length; i++)
        assert.ok(sorted[i]!.start - sorted[i - 1]!.end >= 10 * 60_000, `lane ${lane} keeps its buffer`);
    }
  });
});

// PostgreSQL books on many connections at once: a booking waits only for a booking whose
// kept time it overlaps, never for its lane as such (repo.ts `insertOnLane`): a lane held
// from one booking's insert to its commit's flush would queue every booking of the lane.
if (process.env.TEST_DATABASE_URL)
  describe('PostgreSQL: bookings of one lane side by side', () => {
    let t: TestApp;
    let owner: OrgOwner;
    before(async () => {
      t = await createTestApp();
      owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    });
    after(() => t.close());

    test('a booking of free time on a lane does not wait for an uncommitted booking of that lane', async () => {
      const type = await createType(t.app, owner, {
        bookingMode: 'POOL',
        minBookingDuration: 30,
        bufferTime: 15,
      });
      const lane = await createResource(t.app, owner, { name: 'Solo', resourceTypeId: type.id, capacity: 1 });
      const mon = futureMonday();
      const { updatedAt } = await t.db.kysely
        .selectFrom('resources')
        .select('updatedAt')
        .where('id', '=', lane.id)
        .executeTakeFirstOrThrow();
      const repo = createReservationRepo(t.db.kysely, 'postgres');
      // The race's bookings: one type, only the times differ.
      const bookAt = (startTime: string, endTime: string) =>
        book(t.app, owner, { resourceTypeId: type.id, startTime, endTime });
      const rolledBack = new Error('rolled back');
      const seen: {
        whileOpen?: Awaited<ReturnType<typeof bookAt>>;
        overlapping?: ReturnType<typeof bookAt>;
        overlappingSettled?: boolean;
        overlappingSettledWhileOpen?: boolean;
      } = {};
      await assert.rejects(
        t.db.kysely.transaction().execute(async (trx) => {
          const now = new Date().toISOString();
          const uncommitted = await repo.insertOnLane(
            trx,
            {
              organisationId: owner.organisationId,
              resourceTypeId: type.id,
              resourceId: lane.id,
              status: 'confirmed',
              startTime: at(mon, 10),
              endTime: at(mon, 11),
              blockedUntil: at(mon, 11, 15),
              customer,
              notes: null,
              priceAmount: null,
              priceCurrency: null,
              source: 'api',
              createdByUserId: null,
              rulesOverriddenByUserId: null,
              expiresAt: null,
            },
            updatedAt,
            now,
          );
          assert.ok(uncommitted, 'the first booking is in, not yet committed');
          // Its time (with the buffer) waits for it; the lane's other time does not.
          seen.overlapping = bookAt(at(mon, 11), at(mon, 11, 30));
          void seen.overlapping.then(() => {
            seen.overlappingSettled = true;
          });
          const timer = new AbortController();
          seen.whileOpen = await Promise.race([
            bookAt(at(mon, 12), at(mon, 13)),
            delay(5_000, undefined, { signal: timer.signal }).catch(() => undefined),
          ]);
          timer.abort();
          // Whatever it answers depends on this transaction's end: it cannot have answered yet.
          seen.overlappingSettledWhileOpen = seen.overlappingSettled;
          throw rolledBack;
        }),
        rolledBack,
      );
      const free = seen.whileOpen;
      assert.ok(free, 'the booking of free time answered while the other was open');
      assert.equal(free.statusCode, 201, free.body);
      assert.equal(free.json().resourceId, lane.id);
      assert.notEqual(seen.overlappingSettledWhileOpen, true, 'the overlapping booking waited');
      // Once the first rolled back, the time it kept is free again.
      assert.equal((await seen.overlapping)?.statusCode, 201);
    });
  });
