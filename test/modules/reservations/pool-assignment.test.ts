import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus, validationDetails } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Assignment strategies of POOL types, resource weights and daily caps (DECISIONS.md
 * "Teams: round robin, collective bookings, explanations").
 */
describe('pool assignment', () => {
  let t: TestApp;
  let owner: OrgOwner;
  /** Each call a fresh half hour, so every lane of a pool is free for every booking. */
  let slot = 0;
  const nextSlot = () => {
    slot += 1;
    const base = futureMonday();
    return { startTime: at(base, 0, slot * 30), endTime: at(base, 0, slot * 30 + 30) };
  };

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
  });
  after(() => t.close());

  async function pool(assignment: string, resources: Array<Record<string, unknown>>, bookingMode = 'POOL') {
    const type = await createType(t.app, owner, {
      bookingMode,
      minBookingDuration: 30,
      assignment,
    } as Record<string, unknown>);
    const ids: number[] = [];
    for (const [i, body] of resources.entries())
      ids.push((await createResource(t.app, owner, { name: `R${i}`, resourceTypeId: type.id, ...body })).id);
    return { typeId: type.id, ids };
  }
  const tally = (ids: number[], booked: Array<{ resourceId: number }>) =>
    ids.map((id) => booked.filter((r) => r.resourceId === id).length);

  test('settings: defaults, written and read through REST, bad input refused naming the field', async () => {
    const plain = await createType(t.app, owner, { bookingMode: 'POOL' });
    assert.equal(plain.assignment, 'first_free');
    const resource = await createResource(t.app, owner, { name: 'Plain', resourceTypeId: plain.id });
    assert.equal(resource.assignmentWeight, 1);
    assert.equal(resource.maxBookingsPerDay, null);
    const changed = expectStatus(
      await as(t.app, owner).patch(`/api/resources/${resource.id}`, {
        assignmentWeight: 3,
        maxBookingsPerDay: 4,
      }),
      200,
    );
    assert.equal(changed.assignmentWeight, 3);
    assert.equal(changed.maxBookingsPerDay, 4);
    const read = expectStatus(await as(t.app, owner).get(`/api/resources/${resource.id}`), 200);
    assert.equal(read.maxBookingsPerDay, 4);
    const type = expectStatus(
      await as(t.app, owner).patch(`/api/resource-types/${plain.id}`, { assignment: 'round_robin' }),
      200,
    );
    assert.equal(type.assignment, 'round_robin');

    for (const [body, field] of [
      [{ assignmentWeight: 0 }, 'assignmentWeight'],
      [{ assignmentWeight: 101 }, 'assignmentWeight'],
      [{ assignmentWeight: 1.5 }, 'assignmentWeight'],
      [{ maxBookingsPerDay: 0 }, 'maxBookingsPerDay'],
      [{ maxBookingsPerDay: -2 }, 'maxBookingsPerDay'],
      [{ maxBookingsPerDay: 2.5 }, 'maxBookingsPerDay'],
    ] as const) {
      const details = validationDetails(await as(t.app, owner).patch(`/api/resources/${resource.id}`, body));
      assert.ok(
        details.some((d) => d.startsWith(`body.${field}:`)),
        `${JSON.stringify(body)}: ${details}`,
      );
    }
    const unknown = await as(t.app, owner).patch(`/api/resource-types/${plain.id}`, { assignment: 'random' });
    assert.ok(validationDetails(unknown).some((d) => d.startsWith('body.assignment:')));
  });

  test('round robin spreads bookings evenly and answers why; reads answer it too', async () => {
    const { typeId, ids } = await pool('round_robin', [{}, {}, {}]);
    const booked = [];
    for (let i = 0; i < 9; i++)
      booked.push(expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...nextSlot() }), 201));
    assert.deepEqual(tally(ids, booked), [3, 3, 3]);
    // Ties go to the resource booked longest ago: the same order every round.
    assert.deepEqual(
      booked.slice(0, 3).map((r) => r.resourceId),
      booked.slice(3, 6).map((r) => r.resourceId),
    );
    const last = booked.at(-1);
    assert.deepEqual(last.assignment, {
      strategy: 'round_robin',
      resourceId: last.resourceId,
      reason: 'fewest bookings in the last 30 days (2, weight 1)',
    });
    const read = expectStatus(await as(t.app, owner).get(`/api/reservations/${last.id}`), 200);
    assert.deepEqual(read.assignment, last.assignment);
    // The privacy export carries it beside the reservation's other fields.
    const exported = await t.app.inject({
      method: 'GET',
      url: '/api/compliance/me/privacy/export',
      headers: owner.auth,
    });
    const mine = exported.json().data.reservations.find((r: { id: number }) => r.id === last.id);
    assert.equal(mine.assignmentStrategy, 'round_robin');
    assert.equal(mine.assignmentReason, last.assignment.reason);
  });

  test('weights share round robin; a named resource and first_free answer as before', async () => {
    const { typeId, ids } = await pool('round_robin', [{ assignmentWeight: 1 }, { assignmentWeight: 3 }]);
    const booked = [];
    for (let i = 0; i < 8; i++)
      booked.push(expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...nextSlot() }), 201));
    assert.deepEqual(tally(ids, booked), [2, 6]);

    const first = await pool('first_free', [{}, {}]);
    const a = expectStatus(await book(t.app, owner, { resourceTypeId: first.typeId, ...nextSlot() }), 201);
    const b = expectStatus(await book(t.app, owner, { resourceTypeId: first.typeId, ...nextSlot() }), 201);
    assert.equal(a.resourceId, first.ids[0]);
    assert.equal(b.resourceId, first.ids[0]);
    assert.equal(a.assignment.strategy, 'first_free');

    const single = await createType(t.app, owner, { name: 'Single', minBookingDuration: 30 });
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: single.id });
    const named = expectStatus(await book(t.app, owner, { resourceId: room.id, ...nextSlot() }), 201);
    assert.equal(named.assignment, null);
  });

  test('a series in a round-robin pool takes turns', async () => {
    const type = await createType(t.app, owner, {
      bookingMode: 'POOL',
      minBookingDuration: 30,
      recurringEnabled: true,
      assignment: 'round_robin',
    } as Record<string, unknown>);
    const ids: number[] = [];
    for (const name of ['S1', 'S2'])
      ids.push((await createResource(t.app, owner, { name, resourceTypeId: type.id })).id);
    const series = expectStatus(
      await book(t.app, owner, {
        resourceTypeId: type.id,
        ...nextSlot(),
        recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
      }),
      201,
    );
    assert.deepEqual(tally(ids, series.reservations), [2, 2]);
    assert.equal(series.reservations[0].assignment.strategy, 'round_robin');
  });

  test('least busy day picks the resource with the fewest bookings that day; holds are assigned too', async () => {
    const { typeId, ids } = await pool('least_busy_day', [{}, {}], 'BOTH');
    const day = new Date(futureMonday().getTime() + 3 * 86_400_000);
    // The first resource is busy that day: two bookings made on it by name.
    for (const hour of [8, 9])
      expectStatus(
        await book(t.app, owner, {
          resourceId: ids[0],
          startTime: at(day, hour),
          endTime: at(day, hour, 30),
        }),
        201,
      );
    const held = expectStatus(
      await as(t.app, owner).post('/api/reservations/holds', {
        resourceTypeId: typeId,
        startTime: at(day, 12),
        endTime: at(day, 12, 30),
        customer: { name: 'Ada', email: 'ada@example.test' },
      }),
      201,
    );
    assert.equal(held.resourceId, ids[1]);
    assert.deepEqual(held.assignment, {
      strategy: 'least_busy_day',
      resourceId: ids[1],
      reason: 'fewest bookings that day (0)',
    });
  });

  test("a move within a round-robin pool keeps its lane where it fits, else takes the pool's pick", async () => {
    const { typeId } = await pool('round_robin', [{}, {}]);
    const a = expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...nextSlot() }), 201);
    const stay = expectStatus(
      await as(t.app, owner).post(`/api/reservations/${a.id}/reschedule`, nextSlot()),
      200,
    );
    assert.equal(stay.resourceId, a.resourceId);
    assert.deepEqual(stay.assignment, a.assignment);
    // Where it would move, another booking takes its lane: the pool gives it the other one, and says why.
    const free = nextSlot();
    const taker = expectStatus(
      await as(t.app, owner).post('/api/reservations', {
        resourceTypeId: typeId,
        ...free,
        customer: { name: 'Other', email: 'other@example.test' },
      }),
      201,
    );
    const moved = expectStatus(
      await as(t.app, owner).post(`/api/reservations/${a.id}/reschedule`, free),
      200,
    );
    assert.notEqual(moved.resourceId, taker.resourceId);
    assert.equal(moved.assignment.strategy, 'round_robin');
    assert.equal(moved.assignment.resourceId, moved.resourceId);
    const read = expectStatus(await as(t.app, owner).get(`/api/reservations/${a.id}`), 200);
    assert.deepEqual(read.assignment, moved.assignment);
  });

  test('a daily cap: no longer offered nor booked that day, the next day is', async () => {
    const type = await createType(t.app, owner, { name: 'Capped', minBookingDuration: 30 });
    const room = await createResource(t.app, owner, {
      name: 'Capped',
      resourceTypeId: type.id,
      maxBookingsPerDay: 2,
    } as never);
    const day = new Date(futureMonday().getTime() + 5 * 86_400_000);
    for (const hour of [9, 10])
      expectStatus(
        await book(t.app, owner, {
          resourceId: room.id,
          startTime: at(day, hour),
          endTime: at(day, hour, 30),
        }),
        201,
      );
    const refused = expectStatus(
      await book(t.app, owner, { resourceId: room.id, startTime: at(day, 14), endTime: at(day, 14, 30) }),
      409,
    );
    assert.equal(refused.error.code, 'SLOT_UNAVAILABLE');
    const capReason = { code: 'DAILY_CAP', from: at(day, 14), to: at(day, 14, 30) };
    assert.deepEqual(
      refused.error.details.map((d: { code: string; from: string; to: string }) => ({
        ...d,
        message: undefined,
      })),
      [{ ...capReason, message: undefined }],
    );
    const range = `startTime=${encodeURIComponent(at(day, 14))}&endTime=${encodeURIComponent(at(day, 14, 30))}`;
    const explained = expectStatus(
      await as(t.app, owner).get(`/api/resources/${room.id}/availability/explain?${range}`),
      200,
    );
    assert.equal(explained.bookable, false);
    assert.deepEqual(
      explained.resources[0].reasons.map((r: { code: string }) => r.code),
      ['DAILY_CAP'],
    );
    const offered = expectStatus(
      await as(t.app, owner).get(
        `/api/resources/${room.id}/availability?from=${encodeURIComponent(at(day, 0))}&to=${encodeURIComponent(at(day, 48))}`,
      ),
      200,
    );
    const windows = offered.windows as Array<{ start: string }>;
    assert.ok(windows.length > 0);
    assert.ok(
      windows.every((w) => w.start >= at(day, 24)),
      JSON.stringify(windows),
    );
    expectStatus(
      await book(t.app, owner, { resourceId: room.id, startTime: at(day, 33), endTime: at(day, 33, 30) }),
      201,
    );
  });
});
