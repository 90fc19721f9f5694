import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, mock, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { book, customer } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { at, MINUTE, slot, T0 } from '../../helpers/fixed-week.js';
import { expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Alternatives (DECISIONS.md "Reservations: statuses, holds, payment, reschedule, rules"):
 * every SLOT_UNAVAILABLE and BOOKING_RULE_VIOLATED answer of a booking, hold or reschedule
 * carries `error.alternatives`: up to 5 bookable times of the same length on the same
 * resource or pool, nearest the requested start first, within 14 days, rules applied.
 * Each test books what it was offered. The clock is fake (Date only), fixed at T0.
 */

type Alternative = { startTime: string; endTime: string; resourceId: number | null };

const HOUR = 60 * MINUTE;

describe('alternatives', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const slug = `alternatives-${process.pid}`;

  before(async () => {
    mock.timers.enable({ apis: ['Date'], now: T0 });
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC', slug });
  });
  beforeEach(() => mock.timers.setTime(T0));
  after(async () => {
    await t.close();
    mock.timers.reset();
  });

  const post = (user: SignedInUser | null, url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers: user?.auth ?? {}, payload: payload as object });
  /** The alternatives of a 409 with `code`. */
  function offered(response: LightMyRequestResponse, code: string): Alternative[] {
    const body = expectStatus(response, 409, code);
    assert.ok(Array.isArray(body.error.alternatives), `alternatives in ${response.body}`);
    return body.error.alternatives;
  }
  /** Books each alternative (and cancels it again, so the next is judged alone): each must be bookable. */
  async function bookEach(
    alternatives: Alternative[],
    target: Record<string, unknown>,
    who: Record<string, string> = customer,
  ) {
    for (const a of alternatives) {
      const r = expectStatus(
        await book(t.app, owner, { customer: who, ...target, startTime: a.startTime, endTime: a.endTime }),
        201,
      );
      expectStatus(await post(owner, `/api/reservations/${r.id}/cancel`, {}), 200);
    }
  }
  const starts = (alternatives: Alternative[]) => alternatives.map((a) => a.startTime);

  async function room(typeBody: Record<string, unknown> = {}, resourceBody: Record<string, unknown> = {}) {
    const type = await createType(t.app, owner, { minBookingDuration: 30, ...typeBody });
    const resource = await createResource(t.app, owner, {
      name: 'Room',
      resourceTypeId: type.id,
      ...resourceBody,
    });
    return { typeId: type.id, resourceId: resource.id };
  }

  test('nearest first, before or after (the earlier of two as near), the same length and resource; each bookable', async () => {
    const { resourceId } = await room();
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 10) }), 201);
    const alternatives = offered(
      await book(t.app, owner, { resourceId, ...slot(2, 10) }),
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(starts(alternatives), [at(2, 9), at(2, 11), at(2, 8), at(2, 12), at(2, 7)]);
    for (const a of alternatives) {
      assert.equal(Date.parse(a.endTime) - Date.parse(a.startTime), HOUR);
      assert.equal(a.resourceId, resourceId);
    }
    await bookEach(alternatives, { resourceId });
  });

  test('time a buffer leaves between reservations is found; opening hours are kept', async () => {
    const hours = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, openTime: '09:00', closeTime: '17:00' }));
    const { resourceId } = await room({ bufferTime: 15, schedulePolicy: { operatingHours: hours } });
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 10) }), 201);
    const alternatives = offered(
      await book(t.app, owner, { resourceId, ...slot(2, 10) }),
      'SLOT_UNAVAILABLE',
    );
    // 09:00 would end inside the buffer before 10:00; 11:15 is the first start the buffer after it allows.
    assert.deepEqual(starts(alternatives), [at(2, 11, 15), at(2, 12), at(2, 13), at(2, 14), at(2, 15)]);
    await bookEach(alternatives, { resourceId });
  });

  test('a pool offers times a pool booking takes, each naming the resource it gets', async () => {
    const { typeId, resourceId } = await room({ bookingMode: 'POOL' }, { capacity: 2 });
    expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...slot(2, 10, 2) }), 201);
    expectStatus(await book(t.app, owner, { resourceTypeId: typeId, ...slot(2, 11) }), 201);
    // 10:00-12:00 is full on both lanes for the hour 11-12: 09:00-11:00 fits the second lane.
    const alternatives = offered(
      await book(t.app, owner, { resourceTypeId: typeId, ...slot(2, 10, 2) }),
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(starts(alternatives), [at(2, 9), at(2, 8), at(2, 12), at(2, 7), at(2, 13)]);
    for (const a of alternatives) assert.equal(a.resourceId, resourceId, 'the capacity resource, not a lane');
    await bookEach(alternatives, { resourceTypeId: typeId });
  });

  test('a pool of several resources names the free one; where the mode takes a resource, booking it succeeds', async () => {
    const type = await createType(t.app, owner, { minBookingDuration: 30, bookingMode: 'BOTH' });
    const first = await createResource(t.app, owner, { name: 'First', resourceTypeId: type.id });
    const second = await createResource(t.app, owner, { name: 'Second', resourceTypeId: type.id });
    // First is taken 08:00-12:00 and second 10:00-11:00: the pool is full at 10:00 only.
    expectStatus(
      await book(t.app, owner, { resourceId: first.id, startTime: at(2, 8), endTime: at(2, 12) }),
      201,
    );
    expectStatus(await book(t.app, owner, { resourceId: second.id, ...slot(2, 10) }), 201);
    const alternatives = offered(
      await book(t.app, owner, { resourceTypeId: type.id, ...slot(2, 10) }),
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(
      alternatives.map((a) => [a.startTime, a.resourceId]),
      [
        [at(2, 9), second.id],
        [at(2, 11), second.id],
        [at(2, 8), second.id],
        [at(2, 12), first.id],
        [at(2, 7), first.id],
      ],
    );
    for (const a of alternatives) {
      const r = expectStatus(
        await book(t.app, owner, { resourceId: a.resourceId, startTime: a.startTime, endTime: a.endTime }),
        201,
      );
      expectStatus(await post(owner, `/api/reservations/${r.id}/cancel`, {}), 200);
    }
  });

  test('notice: an alternative stays bookable minutes after it was offered', async () => {
    const { resourceId } = await room({ bookingRules: { minNoticeMinutes: 120 } });
    const alternatives = offered(
      await book(t.app, owner, { resourceId, ...slot(0, 9) }),
      'BOOKING_RULE_VIOLATED',
    );
    // The customer takes a few minutes to choose: 10:01 would be inside the notice by then.
    mock.timers.setTime(T0 + 4 * MINUTE);
    await bookEach(alternatives, { resourceId });
  });

  test('shifts: only free configured slots of the same length', async () => {
    const shiftSchedule = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
      dayOfWeek,
      slots: [
        { startTime: '09:00', endTime: '10:00' },
        { startTime: '10:00', endTime: '11:00' },
        { startTime: '11:00', endTime: '13:00' },
        { startTime: '14:00', endTime: '15:00' },
      ],
    }));
    const { resourceId } = await room({ availabilityMode: 'shifts', schedulePolicy: { shiftSchedule } });
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 10) }), 201);
    const alternatives = offered(
      await book(t.app, owner, { resourceId, ...slot(2, 10) }),
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(starts(alternatives), [at(2, 9), at(2, 14), at(1, 14), at(3, 9), at(1, 10)]);
    await bookEach(alternatives, { resourceId });
  });

  test('notice: nothing inside minNoticeMinutes for the next 5 minutes, the first start after it offered', async () => {
    const { resourceId } = await room({ bookingRules: { minNoticeMinutes: 120 } });
    // T0 + 5 + 120 minutes is 10:05:20: the first start bookable for 5 minutes is 10:06.
    const response = await book(t.app, owner, { resourceId, ...slot(0, 9) });
    assert.equal(response.json().error?.details?.[0]?.rule, 'minNoticeMinutes');
    const alternatives = offered(response, 'BOOKING_RULE_VIOLATED');
    assert.deepEqual(starts(alternatives), [at(0, 10, 6), at(0, 11), at(0, 12), at(0, 13), at(0, 14)]);
    await bookEach(alternatives, { resourceId });
  });

  test('advance: nothing ending beyond maxAdvanceDays', async () => {
    const { resourceId } = await room({ bookingRules: { maxAdvanceDays: 2 } });
    // The window ends at 08:00 on Wednesday (T0 + 2 days, to the minute).
    const alternatives = offered(
      await book(t.app, owner, { resourceId, ...slot(2, 8) }),
      'BOOKING_RULE_VIOLATED',
    );
    assert.deepEqual(starts(alternatives), [at(2, 7), at(2, 6), at(2, 5), at(2, 4), at(2, 3)]);
    await bookEach(alternatives, { resourceId });
  });

  test("daily limit: nothing on a day the customer is full; other customers' bookings count for nothing", async () => {
    const { resourceId } = await room({ bookingRules: { maxPerCustomerPerDay: 1 } });
    const ada = { name: 'Ada', email: 'ada@example.test' };
    expectStatus(await book(t.app, owner, { customer: ada, resourceId, ...slot(2, 14) }), 201);
    const alternatives = offered(
      await book(t.app, owner, { customer: ada, resourceId, ...slot(2, 10) }),
      'BOOKING_RULE_VIOLATED',
    );
    assert.deepEqual(starts(alternatives), [at(1, 23), at(1, 22), at(1, 21), at(1, 20), at(3, 0)]);
    await bookEach(alternatives, { resourceId }, ada);
    // Someone else may take 10:00 that day: the limit is the customer's.
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 10) }), 201);
  });

  test('within 14 days of the requested start: time further away is not offered', async () => {
    const { resourceId } = await room();
    // Taken from 09:00 today (40 minutes from now) to day 20, but for the hour at 09:00 on day 17.
    expectStatus(await book(t.app, owner, { resourceId, startTime: at(0, 9), endTime: at(17, 9) }), 201);
    expectStatus(await book(t.app, owner, { resourceId, startTime: at(17, 10), endTime: at(20, 0) }), 201);
    assert.deepEqual(
      offered(await book(t.app, owner, { resourceId, ...slot(2, 9) }), 'SLOT_UNAVAILABLE'),
      [],
    );
    const near = offered(await book(t.app, owner, { resourceId, ...slot(4, 9) }), 'SLOT_UNAVAILABLE');
    assert.deepEqual(starts(near), [at(17, 9)]);
    await bookEach(near, { resourceId });
  });

  test('a hold and a public slug booking carry the same alternatives', async () => {
    const { resourceId } = await room();
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 10) }), 201);
    const held = offered(
      await post(owner, '/api/reservations/holds', {
        customer,
        resourceId,
        ...slot(2, 10),
        holdSeconds: 120,
      }),
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(starts(held), [at(2, 9), at(2, 11), at(2, 8), at(2, 12), at(2, 7)]);
    const publicly = offered(
      await post(null, `/api/public/organisations/${slug}/reservations`, {
        customer,
        resourceId,
        ...slot(2, 10),
      }),
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(publicly, held);
  });

  test('an inactive type offers nothing; a refusal that is no slot or rule refusal carries none', async () => {
    const { typeId, resourceId } = await room();
    expectStatus(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/resource-types/${typeId}`,
        headers: owner.auth,
        payload: { isActive: false },
      }),
      200,
    );
    assert.deepEqual(
      offered(await book(t.app, owner, { resourceId, ...slot(2, 10) }), 'SLOT_UNAVAILABLE'),
      [],
    );
    const invalid = expectStatus(
      await book(t.app, owner, { resourceId, startTime: at(0, 7), endTime: at(0, 9) }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(invalid.error.alternatives, undefined);
  });
});
