import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, mock, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { book, createReservation, customer } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { at, MINUTE, slot, T0 } from '../../helpers/fixed-week.js';
import { expectStatus } from '../../helpers/http.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Reschedule (DECISIONS.md "Reservations: statuses, holds, payment, reschedule, rules"):
 * POST /api/reservations/:id/reschedule moves a held, pending_payment or confirmed
 * reservation atomically, keeping its id; a time that does not fit leaves it as it was.
 * The clock is fake (Date only), fixed at T0.
 */

describe('reschedule', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let manager: SignedInUser;
  let member: SignedInUser;

  before(async () => {
    mock.timers.enable({ apis: ['Date'], now: T0 });
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    manager = await memberWithRole(t.app, owner, 'MANAGER');
    member = await memberWithRole(t.app, owner, 'MEMBER');
  });
  beforeEach(() => mock.timers.setTime(T0));
  after(async () => {
    await t.close();
    mock.timers.reset();
  });

  const post = (user: SignedInUser, url: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { ...user.auth, ...headers }, payload: payload as object });
  const reschedule = (
    user: SignedInUser,
    id: number,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => post(user, `/api/reservations/${id}/reschedule`, body, headers);
  const get = async (id: number) =>
    expectStatus(
      await t.app.inject({ method: 'GET', url: `/api/reservations/${id}`, headers: owner.auth }),
      200,
    );
  /** The error of a refusal with `status` and `code`. */
  function refused(response: LightMyRequestResponse, status: number, code: string) {
    const body = expectStatus(response, status, code);
    return body.error as {
      message: string;
      details?: Array<{ path?: string; rule?: string }>;
      alternatives?: Array<{ startTime: string; endTime: string; resourceId: number | null }>;
    };
  }

  /** A resource of a type of its own (open all day), with `typeBody` on the type. */
  async function room(typeBody: Record<string, unknown> = {}, resourceBody: Record<string, unknown> = {}) {
    const type = await createType(t.app, owner, { minBookingDuration: 30, ...typeBody });
    const resource = await createResource(t.app, owner, {
      name: 'Room',
      resourceTypeId: type.id,
      ...resourceBody,
    });
    return { typeId: type.id, resourceId: resource.id };
  }

  test('moves a confirmed reservation: same id, status and payment, the new time; the old time is free', async () => {
    const { resourceId } = await room();
    const before = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    const moved = expectStatus(await reschedule(owner, before.id, slot(2, 14)), 200);
    assert.equal(moved.id, before.id);
    assert.equal(moved.status, 'confirmed');
    assert.equal(moved.resourceId, before.resourceId);
    assert.equal(moved.startTime, at(2, 14));
    assert.equal(moved.endTime, at(2, 15));
    assert.deepEqual(
      {
        payment: moved.payment,
        seriesId: moved.seriesId,
        expiresAt: moved.expiresAt,
        customer: moved.customer,
      },
      {
        payment: before.payment,
        seriesId: before.seriesId,
        expiresAt: before.expiresAt,
        customer: before.customer,
      },
    );
    assert.deepEqual(await get(before.id), moved);
    // Its old time is free again, its new one taken.
    await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    refused(await book(t.app, owner, { resourceId, ...slot(2, 14) }), 409, 'SLOT_UNAVAILABLE');
  });

  test('its own time does not block it: a move overlapping itself, and a move to the same time', async () => {
    const { resourceId } = await room({ bufferTime: 15 });
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    const later = expectStatus(
      await reschedule(owner, r.id, { startTime: at(2, 9, 30), endTime: at(2, 10, 30) }),
      200,
    );
    assert.equal(later.startTime, at(2, 9, 30));
    const same = expectStatus(
      await reschedule(owner, r.id, { startTime: at(2, 9, 30), endTime: at(2, 10, 30) }),
      200,
    );
    assert.equal(same.endTime, at(2, 10, 30));
    // Longer than before, into time no one else holds.
    const longer = expectStatus(await reschedule(owner, r.id, slot(2, 8, 4)), 200);
    assert.equal(longer.endTime, at(2, 12));
  });

  test('a hold stays held with its expiresAt; a lapsed hold cannot be moved', async () => {
    const { resourceId } = await room();
    const held = expectStatus(
      await post(owner, '/api/reservations/holds', { customer, resourceId, ...slot(2, 9), holdSeconds: 300 }),
      201,
    );
    const moved = expectStatus(await reschedule(owner, held.id, slot(2, 11)), 200);
    assert.equal(moved.status, 'held');
    assert.equal(moved.expiresAt, held.expiresAt);
    mock.timers.setTime(Date.parse(held.expiresAt));
    const error = refused(await reschedule(owner, held.id, slot(2, 12)), 409, 'INVALID_TRANSITION');
    assert.match(error.message, /expired/);
    assert.equal((await get(held.id)).startTime, at(2, 11));
  });

  test('a time that does not fit: 409 SLOT_UNAVAILABLE with alternatives, the reservation unchanged', async () => {
    const { resourceId } = await room();
    const mine = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    await createReservation(t.app, owner, { resourceId, ...slot(2, 11) });
    const error = refused(await reschedule(owner, mine.id, slot(2, 11)), 409, 'SLOT_UNAVAILABLE');
    assert.ok(error.alternatives, 'alternatives are offered');
    // Its own time counts as free for its move: 10:00 and 12:00 are as near as 11:00 can be.
    assert.deepEqual(
      error.alternatives.slice(0, 2).map((a) => a.startTime),
      [at(2, 10), at(2, 12)],
    );
    for (const alternative of error.alternatives) {
      assert.equal(Date.parse(alternative.endTime) - Date.parse(alternative.startTime), 60 * MINUTE);
      assert.equal(alternative.resourceId, resourceId);
    }
    assert.deepEqual(await get(mine.id), mine);
    // What it offered is what a move takes.
    const [first] = error.alternatives;
    const moved = expectStatus(
      await reschedule(owner, mine.id, { startTime: first!.startTime, endTime: first!.endTime }),
      200,
    );
    assert.equal(moved.startTime, first!.startTime);
  });

  test('only held, pending_payment or confirmed: a cancelled one is 409 INVALID_TRANSITION', async () => {
    const { resourceId } = await room();
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    expectStatus(await post(owner, `/api/reservations/${r.id}/cancel`, {}), 200);
    refused(await reschedule(owner, r.id, slot(2, 12)), 409, 'INVALID_TRANSITION');
    assert.equal((await get(r.id)).startTime, at(2, 9));
  });

  test('bad input is 400 naming the field and changes nothing: a past start, an end before the start, unknown fields', async () => {
    const { resourceId } = await room();
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    const past = refused(
      await reschedule(owner, r.id, { startTime: at(0, 7), endTime: at(0, 9) }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      past.details?.map((d) => d.path),
      ['body.startTime'],
    );
    const backwards = refused(
      await reschedule(owner, r.id, { startTime: at(2, 12), endTime: at(2, 11) }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      backwards.details?.map((d) => d.path),
      ['body.endTime'],
    );
    refused(await reschedule(owner, r.id, { ...slot(2, 12), status: 'cancelled' }), 400, 'VALIDATION_FAILED');
    assert.deepEqual(await get(r.id), r);
    refused(await reschedule(owner, 2_000_000, slot(2, 12)), 404, 'NOT_FOUND');
  });

  test('a pool booking may change lane within its type; a resourceId is refused on a POOL type', async () => {
    const { typeId } = await room({ bookingMode: 'POOL' }, { capacity: 2 });
    const first = await createReservation(t.app, owner, { resourceTypeId: typeId, ...slot(2, 9) });
    const second = await createReservation(t.app, owner, { resourceTypeId: typeId, ...slot(2, 9) });
    assert.notEqual(first.resourceId, second.resourceId);
    // first's lane is taken at 11 by a third booking: the move takes the other lane.
    const third = await createReservation(t.app, owner, { resourceTypeId: typeId, ...slot(2, 11) });
    assert.equal(third.resourceId, first.resourceId);
    const moved = expectStatus(await reschedule(owner, first.id, slot(2, 11)), 200);
    assert.equal(moved.resourceId, second.resourceId);
    // A move that fits where it is stays on its lane.
    const stays = expectStatus(await reschedule(owner, second.id, slot(2, 13)), 200);
    assert.equal(stays.resourceId, second.resourceId);
    const error = refused(
      await reschedule(owner, first.id, { ...slot(2, 15), resourceId: 1 }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      error.details?.map((d) => d.path),
      ['body.resourceId'],
    );
  });

  test('a concrete resource moves to another resourceId of its type; a resource of another type is refused', async () => {
    const { typeId, resourceId } = await room({ bookingMode: 'BOTH' });
    const other = await createResource(t.app, owner, { name: 'Room 2', resourceTypeId: typeId });
    const elsewhere = await room();
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    const moved = expectStatus(await reschedule(owner, r.id, { ...slot(2, 9), resourceId: other.id }), 200);
    assert.equal(moved.resourceId, other.id);
    // Without a resourceId it stays on the resource it is on.
    const later = expectStatus(await reschedule(owner, r.id, slot(2, 10)), 200);
    assert.equal(later.resourceId, other.id);
    const error = refused(
      await reschedule(owner, r.id, { ...slot(2, 12), resourceId: elsewhere.resourceId }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      error.details?.map((d) => d.path),
      ['body.resourceId'],
    );
  });

  test('rules: reschedule notice and advance refuse a member; override is staff only and recorded', async () => {
    // Notice: a move comes at least 3 days before the current start (2 days away).
    const { resourceId } = await room({
      bookingRules: { rescheduleNoticeMinutes: 3 * 1440, maxAdvanceDays: 30 },
    });
    const r = await createReservation(t.app, member, { resourceId, ...slot(2, 9) });
    const error = refused(await reschedule(member, r.id, slot(2, 12)), 409, 'BOOKING_RULE_VIOLATED');
    assert.deepEqual(
      error.details?.map((d) => d.rule),
      ['rescheduleNoticeMinutes'],
    );
    assert.deepEqual(error.alternatives, [], 'no other time escapes a notice counted from the current start');
    expectStatus(await reschedule(member, r.id, { ...slot(2, 12), overrideRules: true }), 403, 'FORBIDDEN');
    assert.deepEqual(await get(r.id), r);
    const moved = expectStatus(await reschedule(manager, r.id, { ...slot(2, 12), overrideRules: true }), 200);
    assert.equal(moved.rulesOverriddenByUserId, manager.id);
    assert.equal(moved.createdByUserId, member.id);

    // Advance: beyond 30 days is refused, with alternatives inside the window.
    const far = { resourceId, ...slot(40, 9) };
    const other = await createReservation(t.app, owner, { resourceId, ...slot(5, 9) });
    const tooFar = refused(await reschedule(owner, other.id, far), 409, 'BOOKING_RULE_VIOLATED');
    assert.deepEqual(
      tooFar.details?.map((d) => d.rule),
      ['maxAdvanceDays'],
    );
    assert.ok(tooFar.alternatives && tooFar.alternatives.length > 0);
    for (const a of tooFar.alternatives)
      assert.ok(Date.parse(a.endTime) <= T0 + 30 * 1440 * MINUTE, a.endTime);
  });

  test('the daily limit per customer does not count the reservation being moved', async () => {
    const { resourceId } = await room({ bookingRules: { maxPerCustomerPerDay: 1 } });
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    expectStatus(await reschedule(owner, r.id, slot(2, 15)), 200);
    // Another of the customer's bookings that day is still refused.
    const second = await createReservation(t.app, owner, { resourceId, ...slot(3, 9) });
    const error = refused(await reschedule(owner, second.id, slot(2, 11)), 409, 'BOOKING_RULE_VIOLATED');
    assert.deepEqual(
      error.details?.map((d) => d.rule),
      ['maxPerCustomerPerDay'],
    );
    for (const a of error.alternatives ?? []) assert.ok(!a.startTime.startsWith('2031-01-08'), a.startTime);
  });

  test('Idempotency-Key: a retry answers the first result and moves once', async () => {
    const { resourceId } = await room();
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    const headers = { 'idempotency-key': `move-${r.id}` };
    const first = await reschedule(owner, r.id, slot(2, 12), headers);
    const moved = expectStatus(first, 200);
    // Someone moves it on in between: the retry must not move it back.
    expectStatus(await reschedule(owner, r.id, slot(2, 14)), 200);
    const retry = await reschedule(owner, r.id, slot(2, 12), headers);
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.json(), moved);
    assert.equal((await get(r.id)).startTime, at(2, 14));
    expectStatus(await reschedule(owner, r.id, slot(2, 16), headers), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('eight concurrent moves into one free slot: exactly one wins, the others keep their time', async () => {
    const { resourceId } = await room();
    const contenders = [];
    for (let hour = 0; hour < 8; hour++)
      contenders.push(await createReservation(t.app, owner, { resourceId, ...slot(3, hour) }));
    const answers = await Promise.all(contenders.map((r) => reschedule(owner, r.id, slot(4, 9))));
    const winners = answers.filter((a) => a.statusCode === 200);
    assert.equal(winners.length, 1, answers.map((a) => a.body).join('\n'));
    for (const a of answers) if (a.statusCode !== 200) refused(a, 409, 'SLOT_UNAVAILABLE');
    const rows = await t.db.kysely
      .selectFrom('reservations')
      .select(['id', 'startTime'])
      .where(
        'id',
        'in',
        contenders.map((r) => r.id),
      )
      .execute();
    const inSlot = rows.filter((row) => row.startTime === at(4, 9));
    assert.equal(inSlot.length, 1);
    assert.equal(inSlot[0]!.id, winners[0]!.json().id);
    for (const r of contenders)
      if (r.id !== inSlot[0]!.id) assert.equal(rows.find((row) => row.id === r.id)!.startTime, r.startTime);
  });

  test("a member cannot move someone else's reservation (403); another organisation's is 404", async () => {
    const { resourceId } = await room();
    const r = await createReservation(t.app, owner, { resourceId, ...slot(2, 9) });
    expectStatus(await reschedule(member, r.id, slot(2, 12)), 403, 'FORBIDDEN');
    const stranger = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    expectStatus(await reschedule(stranger, r.id, slot(2, 12)), 404, 'NOT_FOUND');
    assert.deepEqual(await get(r.id), r);
  });
});
