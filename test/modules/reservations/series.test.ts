import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type Row = { id: number; status: string; startTime: string; endTime: string; seriesId: number | null };

/**
 * Recurring reservations (DECISIONS.md "Recurring reservations and the waitlist"): a
 * series is every occurrence or none, expanded in the organisation's zone at the same
 * wall-clock time across daylight-saving changes, bounded, read and cancelled whole, and
 * each occurrence is an ordinary reservation that can be cancelled or moved alone.
 */
describe('recurring reservations (series)', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let plainRoom: { id: number };
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { recurringEnabled: true });
    room = await createResource(t.app, owner, { name: 'Weekly room', resourceTypeId: type.id });
    const plain = await createType(t.app, owner, { name: 'Plain' });
    plainRoom = await createResource(t.app, owner, { name: 'Plain room', resourceTypeId: plain.id });
  });
  after(() => t.close());

  const rows = async (seriesId?: number) => {
    let q = t.db.kysely.selectFrom('reservations').select(['id', 'startTime', 'status']);
    if (seriesId !== undefined) q = q.where('seriesId', '=', seriesId);
    return q.execute();
  };
  const countAll = async () => (await rows()).length;
  const weekly = (base: Date, hour: number, count: number, resourceId = room.id) => ({
    resourceId,
    startTime: at(base, hour),
    endTime: at(base, hour + 1),
    recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
  });

  test('a weekly series books every occurrence with the series id: 201 {seriesId, reservations}', async () => {
    const base = new Date(futureMonday().getTime() + 7 * 86_400_000);
    const created = expectStatus(await book(t.app, owner, weekly(base, 8, 4)), 201);
    assert.equal(typeof created.seriesId, 'number');
    assert.deepEqual(
      created.reservations.map((r: Row) => r.startTime),
      [0, 1, 2, 3].map((w) => at(base, 8 + w * 24 * 7)),
    );
    for (const r of created.reservations as Row[]) {
      assert.equal(r.seriesId, created.seriesId);
      assert.equal(r.status, 'confirmed');
    }
    // Each occurrence is an ordinary reservation.
    const one = expectStatus(
      await as(t.app, owner).get(`/api/reservations/${created.reservations[1].id}`),
      200,
    );
    assert.equal(one.seriesId, created.seriesId);

    const series = expectStatus(
      await as(t.app, owner).get(`/api/reservations/series/${created.seriesId}`),
      200,
    );
    assert.equal(series.id, created.seriesId);
    assert.deepEqual(series.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=4']);
    assert.deepEqual(
      series.reservations.map((r: Row) => r.id),
      created.reservations.map((r: Row) => r.id),
    );
  });

  test('a series with one conflicting occurrence books nothing and names it with alternatives', async () => {
    const base = new Date(futureMonday().getTime() + 14 * 86_400_000);
    // The third Monday is taken already.
    const third = at(base, 10 + 14 * 24);
    const taken = expectStatus(
      await book(t.app, owner, { resourceId: room.id, startTime: third, endTime: at(base, 11 + 14 * 24) }),
      201,
    );
    const before = await countAll();
    const error = expectError(
      await book(t.app, owner, weekly(base, 10, 5)),
      409,
      'SLOT_UNAVAILABLE',
    ) as unknown as {
      message: string;
      conflicts: Array<{ startTime: string; endTime: string; alternatives: Array<{ startTime: string }> }>;
    };
    assert.equal(error.conflicts.length, 1);
    assert.equal(error.conflicts[0]!.startTime, third);
    assert.equal(error.conflicts[0]!.endTime, at(base, 11 + 14 * 24));
    assert.ok(error.conflicts[0]!.alternatives.length > 0, 'the conflict offers other times');
    assert.match(error.message, /nothing was booked/);
    assert.equal(await countAll(), before, 'nothing was written');
    assert.equal(
      await t.db.kysely
        .selectFrom('reservationSeries')
        .select('id')
        .where('startTime', '=', at(base, 10))
        .executeTakeFirst(),
      undefined,
      'no series row either',
    );
    // Its dry run says the same without writing.
    const dry = expectStatus(await book(t.app, owner, weekly(base, 10, 5), { query: 'dryRun=true' }), 200);
    assert.equal(dry.wouldSucceed, false);
    assert.equal(dry.error.code, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      dry.error.conflicts.map((c: { startTime: string }) => c.startTime),
      [third],
    );
    // Freed, the same series fits; the dry run shows it without ids and writes nothing.
    expectStatus(await as(t.app, owner).post(`/api/reservations/${taken.id}/cancel`), 200);
    const fits = expectStatus(await book(t.app, owner, weekly(base, 10, 5), { query: 'dryRun=true' }), 200);
    assert.equal(fits.wouldSucceed, true);
    assert.equal(fits.seriesId, null);
    assert.equal(fits.reservations.length, 5);
    assert.ok(fits.reservations.every((r: { id: null }) => r.id === null));
    assert.equal(await countAll(), before);
  });

  test('cancel series cancels the occurrences not yet started; one occurrence is cancelled or moved alone', async () => {
    const base = new Date(futureMonday().getTime() + 21 * 86_400_000);
    const created = expectStatus(await book(t.app, owner, weekly(base, 12, 4)), 201);
    const [first, second, third] = created.reservations as Row[];
    // One occurrence alone: cancelled with the existing route.
    const cancelled = expectStatus(await as(t.app, owner).post(`/api/reservations/${first!.id}/cancel`), 200);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.seriesId, created.seriesId);
    // Another moved alone: it keeps its series.
    const moved = expectStatus(
      await as(t.app, owner).post(`/api/reservations/${second!.id}/reschedule`, {
        startTime: at(base, 15 + 7 * 24),
        endTime: at(base, 16 + 7 * 24),
      }),
      200,
    );
    assert.equal(moved.seriesId, created.seriesId);
    assert.equal(moved.startTime, at(base, 15 + 7 * 24));
    assert.equal(
      (await rows(created.seriesId)).filter((r) => r.status === 'confirmed').length,
      3,
      'the others are untouched',
    );

    // A member who did not book it cannot cancel it.
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    expectError(
      await as(t.app, member).post(`/api/reservations/series/${created.seriesId}/cancel`),
      403,
      'FORBIDDEN',
    );
    const after = expectStatus(
      await as(t.app, owner).post(`/api/reservations/series/${created.seriesId}/cancel`),
      200,
    );
    assert.deepEqual(
      after.reservations.map((r: Row) => r.status),
      ['cancelled', 'cancelled', 'cancelled', 'cancelled'],
    );
    assert.ok(after.reservations.some((r: Row) => r.id === third!.id));
    // Its times are free again.
    expectStatus(
      await book(t.app, owner, {
        resourceId: room.id,
        startTime: at(base, 12 + 14 * 24),
        endTime: at(base, 13 + 14 * 24),
      }),
      201,
    );
  });

  test('a series on a type without recurringEnabled: 409 RECURRENCE_NOT_ENABLED, nothing booked', async () => {
    const before = await countAll();
    const error = expectError(
      await book(t.app, owner, weekly(futureMonday(), 9, 3, plainRoom.id)),
      409,
      'RECURRENCE_NOT_ENABLED',
    );
    assert.match(error.message, /recurringEnabled/);
    assert.equal(await countAll(), before);
  });

  test('bad recurrences: each a 400 naming the line, nothing booked', async () => {
    const base = new Date(futureMonday().getTime() + 28 * 86_400_000);
    const before = await countAll();
    const cases: Array<[string[], RegExp]> = [
      [['RRULE:FREQ=WEEKLY'], /body\.recurrence\.0: an RRULE needs COUNT or UNTIL/],
      [['RRULE:FREQ=DAILY;COUNT=105'], /body\.recurrence: a series has at most 104 occurrences/],
      [['RRULE:FREQ=MONTHLY;COUNT=30'], /body\.recurrence: a series must end within 2 years/],
      [['RRULE:FREQ=YEARLY;UNTIL=20991231T000000Z'], /body\.recurrence: a series must end within 2 years/],
      [
        [
          'RRULE:FREQ=WEEKLY;COUNT=3',
          `EXDATE:${DateTime.fromISO(at(base, 10), { zone: 'utc' }).toFormat("yyyyMMdd'T'HHmmss'Z'")}`,
        ],
        /body\.recurrence\.1: names a time that is not an occurrence/,
      ],
      [['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE:20990101T000000Z'], /body\.recurrence\.1: only RRULE and EXDATE/],
      [['RRULE:FREQ=SOMETIMES;COUNT=3'], /body\.recurrence\.0:/],
    ];
    for (const [recurrence, message] of cases) {
      const error = expectError(
        await book(t.app, owner, {
          resourceId: room.id,
          startTime: at(base, 9),
          endTime: at(base, 10),
          recurrence,
        }),
        400,
        'VALIDATION_FAILED',
      );
      assert.match(error.message, message, `${recurrence.join(' ')}: ${error.message}`);
    }
    assert.equal(await countAll(), before);
    // An EXDATE on an occurrence takes it out.
    const exdate = DateTime.fromISO(at(base, 9 + 7 * 24), { zone: 'utc' }).toFormat("yyyyMMdd'T'HHmmss'Z'");
    const created = expectStatus(
      await book(t.app, owner, {
        resourceId: room.id,
        startTime: at(base, 9),
        endTime: at(base, 10),
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', `EXDATE:${exdate}`],
      }),
      201,
    );
    assert.deepEqual(
      created.reservations.map((r: Row) => r.startTime),
      [at(base, 9), at(base, 9 + 14 * 24)],
    );
  });

  test('booking rules apply to each occurrence', async () => {
    const type = await createType(t.app, owner, {
      name: 'Ruled',
      recurringEnabled: true,
      bookingRules: { maxAdvanceDays: 40 },
    });
    const ruled = await createResource(t.app, owner, { name: 'Ruled room', resourceTypeId: type.id });
    const before = await countAll();
    const error = expectError(
      await book(t.app, owner, weekly(futureMonday(), 9, 8, ruled.id)),
      409,
      'BOOKING_RULE_VIOLATED',
    );
    assert.match(error.message, /The occurrence starting .*maxAdvanceDays/);
    assert.equal(await countAll(), before);
    // Staff may override: recorded on each occurrence.
    const overridden = expectStatus(
      await book(t.app, owner, { ...weekly(futureMonday(), 9, 8, ruled.id), overrideRules: true }),
      201,
    );
    assert.equal(overridden.reservations.length, 8);
  });

  test('another organisation cannot read or cancel the series: 404', async () => {
    const created = expectStatus(
      await book(t.app, owner, weekly(new Date(futureMonday().getTime() + 35 * 86_400_000), 17, 2)),
      201,
    );
    const other = await ownerWithOrganisation(t.app, { name: 'Other' });
    expectError(await as(t.app, other).get(`/api/reservations/series/${created.seriesId}`), 404, 'NOT_FOUND');
    expectError(
      await as(t.app, other).post(`/api/reservations/series/${created.seriesId}/cancel`),
      404,
      'NOT_FOUND',
    );
    assert.equal((await rows(created.seriesId)).filter((r) => r.status === 'confirmed').length, 2);
  });
});

/** The Monday three weeks before the zone's spring-forward change of next year, at 09:00 local. */
function beforeSpringForward(zone: string): DateTime {
  let day = DateTime.fromObject({ year: DateTime.now().year + 1, month: 1, day: 1, hour: 9 }, { zone });
  while (day.plus({ days: 1 }).offset === day.offset) day = day.plus({ days: 1 });
  const change = day.plus({ days: 1 });
  return change.minus({ weeks: 3 }).set({ weekday: 1, hour: 9, minute: 0 });
}

for (const zone of ['Europe/Berlin', 'America/New_York']) {
  describe(`series across daylight saving in ${zone}`, () => {
    let t: TestApp;
    let owner: OrgOwner;
    let room: { id: number };
    before(async () => {
      t = await createTestApp();
      owner = await ownerWithOrganisation(t.app, { timezone: zone });
      const type = await createType(t.app, owner, { recurringEnabled: true });
      room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    });
    after(() => t.close());

    test('each occurrence keeps 09:00 local time, its UTC time moving by an hour', async () => {
      const first = beforeSpringForward(zone);
      const created = expectStatus(
        await as(t.app, owner).post('/api/reservations', {
          resourceId: room.id,
          customer,
          startTime: first.toUTC().toISO(),
          endTime: first.plus({ hours: 1 }).toUTC().toISO(),
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
        }),
        201,
      );
      const starts = (created.reservations as Row[]).map((r) => DateTime.fromISO(r.startTime, { zone }));
      assert.equal(starts.length, 6);
      for (const start of starts) assert.equal(start.toFormat('ccc HH:mm'), 'Mon 09:00');
      const utcHours = new Set(starts.map((s) => s.toUTC().hour));
      assert.equal(utcHours.size, 2, 'the UTC hour changes with the offset');
      for (const r of created.reservations as Row[])
        assert.equal(Date.parse(r.endTime) - Date.parse(r.startTime), 3_600_000);
    });
  });
}
