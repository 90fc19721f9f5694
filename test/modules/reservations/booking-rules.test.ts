import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, mock, test } from 'node:test';
import { type Actor, agentActor } from '../../../src/lib/actor.js';
import { DomainError } from '../../../src/lib/errors.js';
import { bindTools, type ToolDefinition } from '../../../src/mcp/types.js';
import { reservationTools } from '../../../src/modules/reservations/tools.js';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { book, customer } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { callTool } from '../../helpers/tool-harness.js';

/**
 * Booking rules of a resource type (DECISIONS.md "Reservations: statuses, holds, payment,
 * reschedule, rules"): what availability offers, what every write refuses, and the staff
 * override. The clock is fake (Date only) and starts 20 seconds past a minute, so the
 * rounding of the notice and advance edges to whole minutes shows.
 */
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
/** Monday 6 January 2031, 08:00:20 UTC: 03:00:20 in New York, the organisation's zone. */
const T0 = Date.parse('2031-01-06T08:00:20.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const utc = (text: string) => Date.parse(`${text}Z`);

describe('booking rules', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let admin: SignedInUser;
  let manager: SignedInUser;
  let member: SignedInUser;
  let tools: ToolDefinition[];
  const slug = 'rules-org';

  before(async () => {
    mock.timers.enable({ apis: ['Date'], now: T0 });
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'America/New_York', slug });
    admin = await memberWithRole(t.app, owner, 'ADMIN');
    manager = await memberWithRole(t.app, owner, 'MANAGER');
    member = await memberWithRole(t.app, owner, 'MEMBER');
    tools = bindTools(reservationTools, t.app.services.reservations);
  });
  beforeEach(() => mock.timers.setTime(T0));
  after(async () => {
    await t.close();
    mock.timers.reset();
  });

  /** A type with `bookingRules` and one resource of it (open all day unless the body says otherwise). */
  async function ruledResource(
    bookingRules: Record<string, number> | null,
    body: Record<string, unknown> = {},
  ) {
    const type = await createType(t.app, owner, { minBookingDuration: 30, bookingRules, ...body });
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    return { typeId: type.id, resourceId: resource.id };
  }

  const slot = (resourceId: number, start: number, end: number, extra: Record<string, unknown> = {}) => ({
    resourceId,
    startTime: iso(start),
    endTime: iso(end),
    ...extra,
  });
  const cancel = (auth: Record<string, string>, id: number, payload?: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/api/reservations/${id}/cancel`,
      headers: auth,
      ...(payload ? { payload } : {}),
    });
  async function availability(resourceId: number, from: number, to: number) {
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/resources/${resourceId}/availability?from=${iso(from)}&to=${iso(to)}`,
      headers: owner.auth,
    });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  }
  /** The broken rules a 409 BOOKING_RULE_VIOLATED names. */
  function brokenRules(response: { statusCode: number; body: string; json(): unknown }): string[] {
    assert.equal(response.statusCode, 409, response.body);
    const { error } = response.json() as {
      error: { code: string; details: Array<{ rule: string; message: string }> };
    };
    assert.equal(error.code, 'BOOKING_RULE_VIOLATED');
    for (const detail of error.details) assert.ok(detail.message.length > 10, detail.message);
    return error.details.map((d) => d.rule);
  }
  async function reservationCount(): Promise<number> {
    const { n } = await t.db.kysely
      .selectFrom('reservations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  test('bookingRules on the type: stored, answered, replaced as a whole, removed with null', async () => {
    const rules = {
      minNoticeMinutes: 0,
      maxAdvanceDays: 3650,
      cancelNoticeMinutes: 525_600,
      rescheduleNoticeMinutes: 60,
      maxPerCustomerPerDay: 1000,
    };
    const type = await createType(t.app, owner, { bookingRules: rules });
    assert.deepEqual(type.bookingRules, rules);
    const plain = await createType(t.app, owner);
    assert.equal(plain.bookingRules, null);

    const patch = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PATCH', url: `/api/resource-types/${type.id}`, headers: owner.auth, payload });
    const replaced = await patch({ bookingRules: { maxPerCustomerPerDay: 1 } });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(replaced.json().bookingRules, { maxPerCustomerPerDay: 1 });
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${type.id}`,
      headers: owner.auth,
    });
    assert.deepEqual(read.json().bookingRules, { maxPerCustomerPerDay: 1 });
    // Another field leaves the rules alone.
    assert.deepEqual((await patch({ name: 'Renamed' })).json().bookingRules, { maxPerCustomerPerDay: 1 });
    assert.equal((await patch({ bookingRules: null })).json().bookingRules, null);
  });

  test('bad rules: negative, non-integer, out of bounds, null or unknown keys answer 400 and change nothing', async () => {
    const type = await createType(t.app, owner, { bookingRules: { minNoticeMinutes: 5 } });
    const cases: Array<[unknown, string]> = [
      [{ minNoticeMinutes: -1 }, 'minNoticeMinutes'],
      [{ minNoticeMinutes: 1.5 }, 'minNoticeMinutes'],
      [{ minNoticeMinutes: 525_601 }, 'minNoticeMinutes'],
      [{ maxAdvanceDays: 0 }, 'maxAdvanceDays'],
      [{ maxAdvanceDays: 3651 }, 'maxAdvanceDays'],
      [{ cancelNoticeMinutes: -5 }, 'cancelNoticeMinutes'],
      [{ rescheduleNoticeMinutes: '60' }, 'rescheduleNoticeMinutes'],
      [{ maxPerCustomerPerDay: 0 }, 'maxPerCustomerPerDay'],
      [{ maxPerCustomerPerDay: 1001 }, 'maxPerCustomerPerDay'],
      [{ maxPerCustomerPerDay: null }, 'maxPerCustomerPerDay'],
      [{ minNoticeMinutes: 5, maxBookingsPerWeek: 3 }, 'maxBookingsPerWeek'],
      [[60], 'bookingRules'],
      [30, 'bookingRules'],
    ];
    for (const [bookingRules, named] of cases) {
      for (const [method, url] of [
        ['POST', '/api/resource-types'],
        ['PATCH', `/api/resource-types/${type.id}`],
      ] as const) {
        const r = await t.app.inject({
          method,
          url,
          headers: owner.auth,
          payload: { name: 'Bad', bookingRules },
        });
        assert.equal(r.statusCode, 400, `${method} ${JSON.stringify(bookingRules)}: ${r.body}`);
        assert.equal(r.json().error.code, 'VALIDATION_FAILED');
        assert.match(r.json().error.message, new RegExp(named), r.body);
        assert.ok(
          r.json().error.details.some((d: { path: string }) => d.path.startsWith('body.bookingRules')),
          r.body,
        );
      }
    }
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${type.id}`,
      headers: owner.auth,
    });
    assert.deepEqual(read.json().bookingRules, { minNoticeMinutes: 5 });
    assert.equal(read.json().name, 'Room');
  });

  test('availability (continuous) offers nothing inside the notice or beyond the advance window, on whole minutes', async () => {
    const { resourceId, typeId } = await ruledResource({ minNoticeMinutes: 90, maxAdvanceDays: 2 });
    // 08:00:20 + 90 minutes = 09:30:20, rounded up; 08:00:20 + 2 days, rounded down.
    const expected = [
      {
        start: '2031-01-06T09:31:00.000Z',
        end: '2031-01-08T08:00:00.000Z',
        freeLanes: 1,
        totalLanes: 1,
      },
    ];
    const from = T0 - 3 * 60 * MINUTE;
    const to = T0 + 3 * DAY;
    assert.deepEqual((await availability(resourceId, from, to)).windows, expected);
    const ofType = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${typeId}/availability?from=${iso(from)}&to=${iso(to)}`,
      headers: owner.auth,
    });
    assert.deepEqual(ofType.json().resources[0].windows, expected);
    const publicly = await t.app.inject({
      method: 'GET',
      url: `/api/public/organisations/${slug}/availability?resourceId=${resourceId}&from=${iso(from)}&to=${iso(to)}`,
    });
    assert.deepEqual(publicly.json().windows, expected);

    // A free stretch cut by the notice must still be the minimum long (30 minutes).
    const busy = await book(
      t.app,
      owner,
      slot(resourceId, utc('2031-01-06T10:00:00'), utc('2031-01-06T11:00:00')),
    );
    assert.equal(busy.statusCode, 201, busy.body);
    mock.timers.setTime(utc('2031-01-06T08:05:00'));
    // Earliest start 09:35: 09:35-10:00 is 25 minutes, too short to offer.
    assert.deepEqual((await availability(resourceId, from, to)).windows, [
      { start: '2031-01-06T11:00:00.000Z', end: '2031-01-08T08:05:00.000Z', freeLanes: 1, totalLanes: 1 },
    ]);
  });

  test('a cached availability answer lives no longer than its minute: the clock alone moves the edges', async () => {
    const { resourceId } = await ruledResource({ minNoticeMinutes: 90, maxAdvanceDays: 2 });
    const from = T0;
    const to = T0 + 3 * DAY;
    const first = await availability(resourceId, from, to);
    assert.equal(first.windows[0].start, '2031-01-06T09:31:00.000Z');
    assert.equal(first.windows[0].end, '2031-01-08T08:00:00.000Z');
    // 08:00:59: both edges are where they were.
    mock.timers.setTime(utc('2031-01-06T08:00:59'));
    assert.deepEqual((await availability(resourceId, from, to)).windows, first.windows);
    // 08:01:01, nothing written: the notice edge is 09:32 and the advance edge 08:01.
    mock.timers.setTime(utc('2031-01-06T08:01:01'));
    assert.deepEqual((await availability(resourceId, from, to)).windows, [
      { start: '2031-01-06T09:32:00.000Z', end: '2031-01-08T08:01:00.000Z', freeLanes: 1, totalLanes: 1 },
    ]);
  });

  test('availability (shifts): a slot inside the notice or beyond the advance window is listed with no lane free', async () => {
    // Slots at 03:00, 04:00 and 05:00 New York time (08:00, 09:00 and 10:00 UTC), every day.
    const shiftSchedule = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
      dayOfWeek,
      slots: [
        { startTime: '03:00', endTime: '04:00' },
        { startTime: '04:00', endTime: '05:00' },
        { startTime: '05:00', endTime: '06:00' },
      ],
    }));
    const { resourceId } = await ruledResource(
      { minNoticeMinutes: 60, maxAdvanceDays: 1 },
      { availabilityMode: 'shifts', schedulePolicy: { shiftSchedule } },
    );
    const answer = await availability(resourceId, utc('2031-01-06T00:00:00'), utc('2031-01-08T00:00:00'));
    const free = answer.slots.filter((s: { available: boolean }) => s.available);
    // The earliest start is 09:01 and the latest end 08:00 the next day: one slot is left.
    assert.deepEqual(free, [
      {
        start: '2031-01-06T10:00:00.000Z',
        end: '2031-01-06T11:00:00.000Z',
        available: true,
        freeLanes: 1,
        totalLanes: 1,
      },
    ]);
    assert.equal(answer.slots.length, 6);
    for (const s of answer.slots.filter((s: { available: boolean }) => !s.available)) {
      assert.equal(s.freeLanes, 0);
      assert.equal(s.totalLanes, 1);
    }
    const tooSoon = await book(
      t.app,
      owner,
      slot(resourceId, utc('2031-01-06T09:00:00'), utc('2031-01-06T10:00:00')),
    );
    assert.deepEqual(brokenRules(tooSoon), ['minNoticeMinutes']);
    const tooFar = await book(
      t.app,
      owner,
      slot(resourceId, utc('2031-01-07T08:00:00'), utc('2031-01-07T09:00:00')),
    );
    assert.deepEqual(brokenRules(tooFar), ['maxAdvanceDays']);
    const fits = await book(
      t.app,
      owner,
      slot(resourceId, utc('2031-01-06T10:00:00'), utc('2031-01-06T11:00:00')),
    );
    assert.equal(fits.statusCode, 201, fits.body);
  });

  test('writes: notice and advance refuse a booking, a hold and a public booking with 409 BOOKING_RULE_VIOLATED', async () => {
    const { resourceId } = await ruledResource({ minNoticeMinutes: 90, maxAdvanceDays: 2 });
    const before = await reservationCount();
    const early = utc('2031-01-06T09:30:00');
    const earliest = utc('2031-01-06T09:31:00');
    const latest = utc('2031-01-08T08:00:00');

    assert.deepEqual(brokenRules(await book(t.app, member, slot(resourceId, early, early + 60 * MINUTE))), [
      'minNoticeMinutes',
    ]);
    assert.deepEqual(
      brokenRules(await book(t.app, member, slot(resourceId, latest - 30 * MINUTE, latest + MINUTE))),
      ['maxAdvanceDays'],
    );
    // A booking from inside the notice to beyond the window breaks both, named in the type's order.
    assert.deepEqual(brokenRules(await book(t.app, member, slot(resourceId, early, latest + MINUTE))), [
      'minNoticeMinutes',
      'maxAdvanceDays',
    ]);
    const hold = await t.app.inject({
      method: 'POST',
      url: '/api/reservations/holds',
      headers: member.auth,
      payload: { customer, ...slot(resourceId, early, early + 60 * MINUTE) },
    });
    assert.deepEqual(brokenRules(hold), ['minNoticeMinutes']);
    const publicBooking = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/api/public/organisations/${slug}/reservations`,
        payload: { customer, ...payload },
      });
    assert.deepEqual(brokenRules(await publicBooking(slot(resourceId, early, early + 60 * MINUTE))), [
      'minNoticeMinutes',
    ]);
    // No override on public routes: the field is unknown there.
    const overridden = await publicBooking(
      slot(resourceId, early, early + 60 * MINUTE, { overrideRules: true }),
    );
    assert.equal(overridden.statusCode, 400, overridden.body);
    assert.match(overridden.json().error.message, /overrideRules/);
    assert.equal(await reservationCount(), before, 'nothing was written');

    // The edges themselves are bookable, as availability offered them.
    const first = await book(t.app, member, slot(resourceId, earliest, earliest + 60 * MINUTE));
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().rulesOverriddenByUserId, null);
    const last = await publicBooking(slot(resourceId, latest - 60 * MINUTE, latest));
    assert.equal(last.statusCode, 201, last.body);
  });

  test('override: OWNER, ADMIN and MANAGER book past the rules and are recorded; a MEMBER gets 403', async () => {
    const { resourceId } = await ruledResource({ minNoticeMinutes: 600 });
    const start = (hour: number) => utc(`2031-01-06T${String(hour).padStart(2, '0')}:00:00`);
    for (const [who, user, hour] of [
      ['OWNER', owner, 9],
      ['ADMIN', admin, 10],
      ['MANAGER', manager, 11],
    ] as const) {
      const r = await book(
        t.app,
        user,
        slot(resourceId, start(hour), start(hour + 1), { overrideRules: true }),
      );
      assert.equal(r.statusCode, 201, `${who}: ${r.body}`);
      assert.equal(r.json().rulesOverriddenByUserId, user.id, who);
      const read = await t.app.inject({
        method: 'GET',
        url: `/api/reservations/${r.json().id}`,
        headers: owner.auth,
      });
      assert.equal(read.json().rulesOverriddenByUserId, user.id, who);
    }
    const before = await reservationCount();
    const refused = await book(
      t.app,
      member,
      slot(resourceId, start(12), start(13), { overrideRules: true }),
    );
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().error.code, 'FORBIDDEN');
    assert.match(
      refused.json().error.message,
      /overrideRules needs one of the organisation roles OWNER, ADMIN, MANAGER/,
    );
    // Refused whether or not a rule would break: the flag itself is not theirs to send.
    const later = await book(t.app, member, slot(resourceId, start(20), start(21), { overrideRules: true }));
    assert.equal(later.statusCode, 403, later.body);
    assert.equal(await reservationCount(), before);
    assert.deepEqual(brokenRules(await book(t.app, member, slot(resourceId, start(12), start(13)))), [
      'minNoticeMinutes',
    ]);
    // Staff asking for an override that no rule needed: nothing to record.
    const unneeded = await book(
      t.app,
      manager,
      slot(resourceId, start(20), start(21), { overrideRules: true }),
    );
    assert.equal(unneeded.statusCode, 201, unneeded.body);
    assert.equal(unneeded.json().rulesOverriddenByUserId, null);
    assert.equal(
      (await book(t.app, owner, slot(resourceId, start(22), start(23), { overrideRules: 'yes' }))).statusCode,
      400,
    );
  });

  test('override on holds: staff hold past the rules (recorded), a MEMBER gets 403, a public hold may not ask', async () => {
    const { resourceId } = await ruledResource({ minNoticeMinutes: 600 });
    const start = (hour: number) => utc(`2031-01-06T${String(hour).padStart(2, '0')}:00:00`);
    const hold = (auth: Record<string, string>, from: number, extra: Record<string, unknown> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/api/reservations/holds',
        headers: auth,
        payload: { customer, ...slot(resourceId, from, from + 60 * MINUTE, extra) },
      });
    const before = await reservationCount();
    assert.deepEqual(brokenRules(await hold(manager.auth, start(9))), ['minNoticeMinutes']);
    const refused = await hold(member.auth, start(9), { overrideRules: true });
    assert.equal(refused.statusCode, 403, refused.body);
    const publicHold = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/holds`,
      payload: { customer, ...slot(resourceId, start(9), start(10), { overrideRules: true }) },
    });
    assert.equal(publicHold.statusCode, 400, publicHold.body);
    assert.match(publicHold.json().error.message, /overrideRules/);
    assert.equal(await reservationCount(), before, 'nothing was written');

    const held = await hold(manager.auth, start(9), { overrideRules: true });
    assert.equal(held.statusCode, 201, held.body);
    assert.equal(held.json().status, 'held');
    assert.equal(held.json().rulesOverriddenByUserId, manager.id);
  });

  test('override through MCP: an agent acts with its owner’s role', async () => {
    const { resourceId } = await ruledResource({ minNoticeMinutes: 600 });
    const agentOf = (userId: number): Actor => agentActor(userId, { id: 1, actions: new Set(), scope: {} });
    const input = (hour: number) => ({
      customer,
      resourceId,
      startTime: iso(utc(`2031-01-06T${hour}:00:00`)),
      endTime: iso(utc(`2031-01-06T${hour}:30:00`)),
    });
    const rejects = (promise: Promise<unknown>, code: string) =>
      assert.rejects(promise, (error: unknown) => error instanceof DomainError && error.code === code);

    await rejects(
      callTool(tools, 'reservations.create', agentOf(member.id), input(10)),
      'BOOKING_RULE_VIOLATED',
    );
    await rejects(
      callTool(tools, 'reservations.create', agentOf(member.id), { ...input(10), overrideRules: true }),
      'FORBIDDEN',
    );
    const booked = await callTool(tools, 'reservations.create', agentOf(manager.id), {
      ...input(10),
      overrideRules: true,
    });
    assert.equal(booked.rulesOverriddenByUserId, manager.id);
    assert.equal(booked.source, 'mcp');
  });

  test('cancel notice: a booking within it is not cancelled, unless staff override (recorded); a hold always can be', async () => {
    const { resourceId } = await ruledResource({ cancelNoticeMinutes: 120 });
    const made = async (user: SignedInUser, minutesAfterT0: number) => {
      const start = T0 + minutesAfterT0 * MINUTE;
      const r = await book(t.app, user, slot(resourceId, start, start + 30 * MINUTE));
      assert.equal(r.statusCode, 201, r.body);
      return r.json().id as number;
    };
    // 130 minutes before its start: cancellable.
    const early = await made(member, 130);
    const inTime = await cancel(member.auth, early);
    assert.equal(inTime.statusCode, 200, inTime.body);
    assert.equal(inTime.json().rulesOverriddenByUserId, null);

    // Within the login token's 15 minutes.
    mock.timers.setTime(T0 + 10 * MINUTE);
    const later = await made(member, 200);
    const tooLate = await made(member, 100);
    assert.deepEqual(brokenRules(await cancel(member.auth, tooLate)), ['cancelNoticeMinutes']);
    const refused = await cancel(member.auth, tooLate, { overrideRules: true });
    assert.equal(refused.statusCode, 403, refused.body);
    const kept = await t.app.inject({
      method: 'GET',
      url: `/api/reservations/${tooLate}`,
      headers: owner.auth,
    });
    assert.equal(kept.json().status, 'confirmed');
    assert.equal(kept.json().rulesOverriddenByUserId, null);
    const overridden = await cancel(manager.auth, tooLate, { overrideRules: true });
    assert.equal(overridden.statusCode, 200, overridden.body);
    assert.equal(overridden.json().status, 'cancelled');
    assert.equal(overridden.json().rulesOverriddenByUserId, manager.id);
    // 180 minutes ahead, with an empty body: fine.
    assert.equal((await cancel(member.auth, later, {})).statusCode, 200);

    // MCP: the same rule and the same override.
    const agentOf = (userId: number): Actor => agentActor(userId, { id: 1, actions: new Set(), scope: {} });
    const soon = await made(member, 110);
    await assert.rejects(
      callTool(tools, 'reservations.cancel', agentOf(member.id), { reservationId: soon }),
      (error: unknown) => error instanceof DomainError && error.code === 'BOOKING_RULE_VIOLATED',
    );
    const byAdmin = await callTool(tools, 'reservations.cancel', agentOf(admin.id), {
      reservationId: soon,
      overrideRules: true,
    });
    assert.equal(byAdmin.status, 'cancelled');
    assert.equal(byAdmin.rulesOverriddenByUserId, admin.id);

    // A hold inside the cancel notice can be let go.
    const holdStart = T0 + 60 * MINUTE;
    const hold = await t.app.inject({
      method: 'POST',
      url: '/api/reservations/holds',
      headers: member.auth,
      payload: { customer, ...slot(resourceId, holdStart, holdStart + 30 * MINUTE) },
    });
    assert.equal(hold.statusCode, 201, hold.body);
    const released = await cancel(member.auth, hold.json().id);
    assert.equal(released.statusCode, 200, released.body);
    assert.equal(released.json().status, 'cancelled');
  });

  test('per customer per day: live reservations of the type on one local day of the organisation', async () => {
    const { resourceId, typeId } = await ruledResource({ maxPerCustomerPerDay: 2 });
    const other = await createResource(t.app, owner, { name: 'Room 2', resourceTypeId: typeId });
    const at = (text: string) => utc(text);
    // 7 January in New York runs from 05:00 UTC that day to 05:00 UTC the next.
    const first = await book(
      t.app,
      member,
      slot(resourceId, at('2031-01-07T15:00:00'), at('2031-01-07T16:00:00')),
    );
    assert.equal(first.statusCode, 201, first.body);
    // 22:00 in New York, 03:00 UTC on the 8th: the same local day. Another resource of the type counts too.
    const second = await book(
      t.app,
      member,
      slot(other.id, at('2031-01-08T03:00:00'), at('2031-01-08T04:00:00'), {
        customer: { ...customer, email: customer.email.toUpperCase() },
      }),
    );
    assert.equal(second.statusCode, 201, second.body);
    const third = slot(resourceId, at('2031-01-07T17:00:00'), at('2031-01-07T18:00:00'));
    const refused = await book(t.app, member, third);
    assert.deepEqual(brokenRules(refused), ['maxPerCustomerPerDay']);
    assert.match(refused.json().error.message, /2031-01-07 \(America\/New_York\)/);
    // Held time counts too.
    const hold = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/reservations/holds',
        headers: member.auth,
        payload: { customer, holdSeconds: 60, ...payload },
      });
    assert.deepEqual(brokenRules(await hold(third)), ['maxPerCustomerPerDay']);
    // 01:00 in New York on the 8th (06:00 UTC): the next local day, though the same UTC day as the second.
    const nextDay = await book(
      t.app,
      member,
      slot(resourceId, at('2031-01-08T06:00:00'), at('2031-01-08T07:00:00')),
    );
    assert.equal(nextDay.statusCode, 201, nextDay.body);
    // Another customer has a limit of their own.
    const someoneElse = await book(t.app, member, {
      ...slot(resourceId, at('2031-01-07T12:00:00'), at('2031-01-07T13:00:00')),
      customer: { ...customer, email: 'ada@example.test' },
    });
    assert.equal(someoneElse.statusCode, 201, someoneElse.body);
    // A cancelled reservation no longer counts.
    assert.equal((await cancel(member.auth, first.json().id)).statusCode, 200);
    const held = await hold(third);
    assert.equal(held.statusCode, 201, held.body);
    assert.equal(held.json().status, 'held');
    // A live hold counts; once it lapsed (no sweep needed) it does not.
    const fourth = slot(other.id, at('2031-01-07T19:00:00'), at('2031-01-07T20:00:00'));
    assert.deepEqual(brokenRules(await book(t.app, member, fourth)), ['maxPerCustomerPerDay']);
    mock.timers.setTime(T0 + 61_000);
    const afterLapse = await book(t.app, member, fourth);
    assert.equal(afterLapse.statusCode, 201, afterLapse.body);
    // Staff may book past the limit, recorded.
    const extra = await book(t.app, admin, {
      ...slot(resourceId, at('2031-01-07T21:00:00'), at('2031-01-07T22:00:00')),
      overrideRules: true,
    });
    assert.equal(extra.statusCode, 201, extra.body);
    assert.equal(extra.json().rulesOverriddenByUserId, admin.id);
  });

  test('per customer per day holds under concurrent bookings of one customer', async () => {
    const type = await createType(t.app, owner, {
      minBookingDuration: 30,
      bookingRules: { maxPerCustomerPerDay: 2 },
    });
    const pool = await createResource(t.app, owner, { name: 'Pool', resourceTypeId: type.id, capacity: 4 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        book(
          t.app,
          member,
          slot(
            pool.id,
            utc('2031-01-09T14:00:00') + i * 30 * MINUTE,
            utc('2031-01-09T14:30:00') + i * 30 * MINUTE,
          ),
        ),
      ),
    );
    const codes = answers.map((r) => (r.statusCode === 201 ? 'booked' : r.json().error.code));
    assert.equal(codes.filter((c) => c === 'booked').length, 2, codes.join(', '));
    assert.equal(codes.filter((c) => c === 'BOOKING_RULE_VIOLATED').length, 10, codes.join(', '));
  });
});
