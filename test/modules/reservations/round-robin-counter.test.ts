import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { keepsTimeAt } from '../../../src/modules/reservations/reservation-time.js';
import { createRoundRobinCounts, windowAt } from '../../../src/modules/reservations/round-robin-counts.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { book, customer, halfHourAfterHalfHour } from '../../helpers/booking.js';
import { createResource, createType, roundRobinTeam } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

/**
 * Round robin's count (DECISIONS.md "Teams") is kept per lane, type and day by triggers
 * (reservations migration 0070) and completed from the lane indexes: after every way a
 * booking starts or stops keeping its time (booked, cancelled, a hold lapsing or paid, a move
 * to another lane, a collective part following its reservation, the clock passing the window's
 * first day) it must answer what counting every row answers. The clock is Date under
 * mock.timers; nothing sleeps.
 */
describe('round robin count kept by the lane counter', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const DAY = 86_400_000;
  const nextSlot = halfHourAfterHalfHour();

  before(async () => {
    t = await createTestApp();
    owner = await withApiKey(t.app, await ownerWithOrganisation(t.app, { timezone: 'UTC' }));
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  /** A login JWT lives 15 minutes; a user API key carries a user across the fake clock. */

  /** A round-robin type (booked by its pool; BOTH: by name too) with two resources. */
  const team = (bookingMode: 'POOL' | 'BOTH' = 'POOL') =>
    roundRobinTeam(t.app, owner, ['A', 'B'], bookingMode);

  /** Per lane: [count, latest made], as round robin reads it. */
  async function counted(typeId: number, ids: number[]) {
    const { roundRobinCounts } = createRoundRobinCounts(t.db.kysely, t.db.dialect);
    const counts = await roundRobinCounts(t.db.kysely, typeId, ids, new Date().toISOString());
    return ids.map((id) => [counts.get(id)?.count ?? 0, counts.get(id)?.last ?? null]);
  }

  /** Per lane: [count, latest made], every row of the window counted one by one. */
  async function byRows(typeId: number, ids: number[]) {
    const now = new Date().toISOString();
    const rows = await t.db.kysely
      .selectFrom('reservations')
      .select((eb) => ['resourceId', eb.fn.countAll<number>().as('n'), eb.fn.max('createdAt').as('last')])
      .where('resourceId', 'in', ids)
      .where('resourceTypeId', '=', typeId)
      .where('createdAt', '>=', windowAt(now).since)
      .where(keepsTimeAt(now))
      .groupBy('resourceId')
      .execute();
    return ids.map((id) => {
      const row = rows.find((r) => r.resourceId === id);
      return [Number(row?.n ?? 0), row?.last ?? null];
    });
  }

  /** The kept count agrees with the rows, and is `expected` per lane. */
  async function expectCounts(typeId: number, ids: number[], expected: number[], why: string) {
    const kept = await counted(typeId, ids);
    assert.deepEqual(kept, await byRows(typeId, ids), `${why}: kept count against the rows`);
    assert.deepEqual(
      kept.map(([n]) => n),
      expected,
      why,
    );
  }

  const pooled = async (typeId: number, body: Record<string, unknown> = {}) =>
    expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...nextSlot(), ...body }), 201);
  const hold = async (typeId: number, holdSeconds: number) =>
    expectStatus(
      await as(t.app, owner).post('/api/reservations/holds', {
        resourceTypeId: typeId,
        ...nextSlot(),
        holdSeconds,
        customer,
      }),
      201,
    );
  const post = async (path: string, body?: Record<string, unknown>) =>
    expectStatus(await as(t.app, owner).post(path, body), 200);

  test('cancel, a lapsed hold, a paid hold and a move to another lane keep the count', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { typeId, ids } = await team();
    const a = await pooled(typeId);
    mock.timers.setTime(start + 1000);
    const b = await pooled(typeId);
    assert.deepEqual([a.resourceId, b.resourceId], ids);
    await expectCounts(typeId, ids, [1, 1], 'booked');

    mock.timers.setTime(start + 2000);
    const lapsing = await hold(typeId, 120);
    assert.equal(lapsing.resourceId, ids[0], 'ties to the lane booked longest ago');
    await expectCounts(typeId, ids, [2, 1], 'a hold counts while it keeps its time');
    mock.timers.setTime(start + 2000 + 120_000);
    await expectCounts(typeId, ids, [1, 1], 'at its expiry it stops, before any sweep');

    const paid = await hold(typeId, 120);
    assert.equal(paid.resourceId, ids[0]);
    await post(`/api/reservations/${paid.id}/confirm`);
    mock.timers.setTime(start + 600_000);
    await expectCounts(typeId, ids, [2, 1], 'a confirmed hold counts for good');
    const next = await pooled(typeId);
    assert.equal(next.resourceId, ids[1]);
    assert.equal(next.assignment.reason, 'fewest bookings in the last 30 days (1, weight 1)');
    await expectCounts(typeId, ids, [2, 2], 'booked again');

    await post(`/api/reservations/${a.id}/cancel`);
    await expectCounts(typeId, ids, [1, 2], 'a cancelled booking stops counting');

    // Its own lane is taken where it moves: the move takes the other lane, and its count with it.
    const taken = nextSlot();
    assert.equal((await pooled(typeId, taken)).resourceId, ids[0]);
    await expectCounts(typeId, ids, [2, 2], 'booked where it moves');
    const moved = await post(`/api/reservations/${paid.id}/reschedule`, taken);
    assert.equal(moved.resourceId, ids[1]);
    await expectCounts(typeId, ids, [1, 3], 'a move to another lane');
  });

  test("a collective reservation's part counts on its resource until cancelled, through a move", async () => {
    // The room first: its row is the reservation, the team's resource keeps a part.
    const other = await createType(t.app, owner, { name: 'Room', minBookingDuration: 30 });
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: other.id });
    const { typeId, ids } = await team('BOTH');
    const together = expectStatus(
      await book(t.app, owner, { resourceIds: [room.id, ids[1]], ...nextSlot() }),
      201,
    );
    await expectCounts(typeId, ids, [0, 1], 'the part counts on its resource');
    await post(`/api/reservations/${together.id}/reschedule`, nextSlot());
    await expectCounts(typeId, ids, [0, 1], 'a move writes the part again');
    await post(`/api/reservations/${together.id}/cancel`);
    await expectCounts(typeId, ids, [0, 0], 'the part follows its cancelled reservation');
  });

  test("the window's first day counts from the clock's time of day, then not at all", async () => {
    const day0 = new Date();
    day0.setUTCHours(10, 0, 0, 0);
    mock.timers.enable({ apis: ['Date'], now: day0.getTime() });
    const { typeId, ids } = await team();
    const early = await pooled(typeId);
    mock.timers.setTime(day0.getTime() + 4 * 3_600_000);
    const late = await pooled(typeId);
    assert.deepEqual([early.resourceId, late.resourceId], ids);
    await expectCounts(typeId, ids, [1, 1], 'the same day');

    // 30 days on at 12:00: the 10:00 booking has left the window, the 14:00 one has not.
    mock.timers.setTime(day0.getTime() + 30 * DAY + 2 * 3_600_000);
    await expectCounts(typeId, ids, [0, 1], 'the first day of the window, in part');
    const picked = await pooled(typeId);
    assert.equal(picked.resourceId, ids[0]);
    assert.equal(picked.assignment.reason, 'fewest bookings in the last 30 days (0, weight 1)');

    mock.timers.setTime(day0.getTime() + 31 * DAY);
    await expectCounts(typeId, ids, [1, 0], 'a day later only the new booking counts');
  });
});
