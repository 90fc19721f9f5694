import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { laneDaysKeptFrom } from '../../../src/modules/reservations/lane-days-prune.js';
import {
  createRoundRobinCounts,
  ROUND_ROBIN_DAYS,
  windowAt,
} from '../../../src/modules/reservations/round-robin-counts.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { book, halfHourAfterHalfHour } from '../../helpers/booking.js';
import { roundRobinTeam } from '../../helpers/catalogue.js';
import { expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

/**
 * The prune job (lane-days-prune.ts) deletes round robin's counter rows (migration 0070) of
 * days before its window, less a margin, and nothing round robin reads: the count and the
 * lane a booking would take are the same after it. The clock is Date under mock.timers.
 */
describe('round robin counter prune', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const DAY = 86_400_000;
  const nextSlot = halfHourAfterHalfHour();

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    // A login JWT lives 15 minutes; an API key carries the owner across the fake clock.
    owner = await withApiKey(t.app, owner);
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  /** A round-robin pool type with two resources. */
  const team = async () => {
    const { typeId, ids } = await roundRobinTeam(t.app, owner, ['A', 'B']);
    return { typeId, ids: ids as [number, number] };
  };

  /** Per lane and day of the type's counter rows: the sum over writers, sorted. */
  async function counterRows(typeId: number) {
    const rows = await t.db.kysely
      .selectFrom('reservationLaneDays')
      .select((eb) => ['resourceId', 'day', eb.fn.sum<number>('bookings').as('bookings')])
      .where('resourceTypeId', '=', typeId)
      .groupBy(['resourceId', 'day'])
      .orderBy('day')
      .orderBy('resourceId')
      .execute();
    return rows.map((row) => [row.resourceId, row.day, Number(row.bookings)] as const);
  }

  /** What round robin reads now: per lane its count and latest booking, and the lane a booking would take. */
  async function roundRobinNow(typeId: number, ids: number[]) {
    const { roundRobinCounts } = createRoundRobinCounts(t.db.kysely, t.db.dialect);
    const counts = await roundRobinCounts(t.db.kysely, typeId, ids, new Date().toISOString());
    const dry = expectStatus(
      await book(t.app, owner, { resourceTypeId: typeId, ...nextSlot() }, { query: 'dryRun=true' }),
      200,
    );
    assert.equal(dry.wouldSucceed, true);
    return {
      counts: ids.map((id) => [counts.get(id)?.count ?? 0, counts.get(id)?.last ?? null]),
      pick: [dry.reservation.resourceId, dry.reservation.assignment.reason],
    };
  }

  test('keeps every day from its margin before the window on, across UTC midnight', () => {
    for (const now of [
      '2031-02-10T23:59:59.999Z',
      '2031-02-11T00:00:00.000Z',
      '2031-03-01T12:00:00.000Z',
      '2032-03-01T00:30:00.000Z',
    ]) {
      const { firstDay } = windowAt(now);
      const twoDaysBefore = new Date(Date.parse(`${firstDay}T00:00:00Z`) - 2 * DAY)
        .toISOString()
        .slice(0, 10);
      assert.equal(laneDaysKeptFrom(now), twoDaysBefore, now);
    }
  });

  test('rows of days before the margin go; the rest and round robin answers stay', async () => {
    const day0 = new Date();
    day0.setUTCHours(10, 0, 0, 0);
    mock.timers.enable({ apis: ['Date'], now: day0.getTime() });
    const { typeId, ids } = await team();
    // Bookings made on days 0, 1, 3, 5 and twice on 20.
    for (const [day, hour] of [
      [0, 0],
      [1, 0],
      [3, 0],
      [5, 0],
      [20, 0],
      [20, 1],
    ] as const) {
      mock.timers.setTime(day0.getTime() + day * DAY + hour * 3_600_000);
      expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...nextSlot() }), 201);
    }

    // 34 days on at 12:00: the window starts on day 4 at 12:00; rows from day 2 on are kept.
    const now = day0.getTime() + 34 * DAY + 2 * 3_600_000;
    mock.timers.setTime(now);
    const dayOf = (day: number) => new Date(day0.getTime() + day * DAY).toISOString().slice(0, 10);
    assert.equal(windowAt(new Date(now).toISOString()).firstDay, dayOf(4));
    assert.equal(laneDaysKeptFrom(new Date(now).toISOString()), dayOf(2));
    const rowsBefore = await counterRows(typeId);
    assert.deepEqual(
      [...new Set(rowsBefore.map(([, day]) => day))],
      [0, 1, 3, 5, 20].map(dayOf),
      'a counter row per day booked',
    );
    const answersBefore = await roundRobinNow(typeId, ids);
    assert.deepEqual(
      answersBefore.counts.map(([n]) => n).sort(),
      [1, 2],
      `days 5 and 20 count, of the last ${ROUND_ROBIN_DAYS}`,
    );

    const pruned = await t.app.services.reservations.pruneLaneDays();
    const rowsAfter = await counterRows(typeId);
    assert.deepEqual(
      rowsAfter,
      rowsBefore.filter(([, day]) => day >= dayOf(2)),
      'days 0 and 1 are gone, days 3 on stay as they were',
    );
    assert.ok(pruned >= 2, `deleted the two old days' rows (${pruned})`);
    assert.deepEqual(await roundRobinNow(typeId, ids), answersBefore, 'round robin answers the same');
    assert.equal(await t.app.services.reservations.pruneLaneDays(), 0, 'a second run finds nothing');
  });

  if (process.env.TEST_DATABASE_URL)
    test("PostgreSQL: a past day's rows per writer fold into one, skipping a row a transaction holds", {
      timeout: 30_000,
    }, async () => {
      const { typeId, ids } = await team();
      const [a, b] = ids;
      const day = new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10);
      const today = new Date().toISOString().slice(0, 10);
      const row = (resourceId: number, on: string, writer: number, bookings: number) => ({
        resourceId,
        resourceTypeId: typeId,
        day: on,
        writer,
        bookings,
      });
      // Writers as backend pids would be; a writer's row may be below 0.
      await t.db.kysely
        .insertInto('reservationLaneDays')
        .values([
          row(a, day, 0, 2),
          row(a, day, 1_000_001, 3),
          row(a, day, 1_000_002, -1),
          row(b, day, 1_000_001, 1),
          row(b, day, 1_000_003, 4),
          row(a, today, 1_000_001, 1),
        ])
        .execute();
      const rowsOf = async () =>
        (
          await t.db.kysely
            .selectFrom('reservationLaneDays')
            .select(['resourceId', 'day', 'writer', 'bookings'])
            .where('resourceTypeId', '=', typeId)
            .orderBy(['resourceId', 'day', 'writer'])
            .execute()
        ).map((r) => [r.resourceId, r.day, r.writer, r.bookings]);
      const before = await roundRobinNow(typeId, ids);
      assert.deepEqual(
        before.counts.map(([n]) => n),
        [5, 5],
      );

      // A transaction holds one row, as a cancel's trigger would until its commit: the merge goes on without it.
      await t.db.kysely.transaction().execute(async (trx) => {
        await trx
          .updateTable('reservationLaneDays')
          .set((eb) => ({ bookings: eb('bookings', '+', 0) }))
          .where('resourceId', '=', b)
          .where('writer', '=', 1_000_003)
          .execute();
        await t.app.services.reservations.pruneLaneDays();
      });
      assert.deepEqual(await rowsOf(), [
        [a, day, 0, 4],
        [a, today, 1_000_001, 1],
        [b, day, 0, 1],
        [b, day, 1_000_003, 4],
      ]);
      assert.deepEqual(await roundRobinNow(typeId, ids), before, 'round robin answers the same');

      assert.equal(await t.app.services.reservations.pruneLaneDays(), 1, 'the held row, once free');
      assert.deepEqual(await rowsOf(), [
        [a, day, 0, 4],
        [a, today, 1_000_001, 1],
        [b, day, 0, 5],
      ]);
      assert.deepEqual(await roundRobinNow(typeId, ids), before, 'still the same');
    });
});
