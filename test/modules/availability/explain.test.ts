import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { at, book, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus, ok, validationDetails } from '../../helpers/http.js';
import { memberWithRole, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Explanations (DECISIONS.md "Teams"): why a time can or cannot be booked, each reason with
 * the part of the asked time it covers, for staff of the organisation only.
 */
const weekdays = (openTime: string, closeTime: string, days = [1, 2, 3, 4, 5]) =>
  days.map((dayOfWeek) => ({ dayOfWeek, openTime, closeTime }));

interface Reason {
  code: string;
  message: string;
  from?: string;
  to?: string;
}
interface Explanation {
  bookable: boolean;
  resources: Array<{ resourceId: number; bookable: boolean; reasons: Reason[] }>;
}

describe('availability explanations', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const query = (startTime: string, endTime: string) =>
    `startTime=${encodeURIComponent(startTime)}&endTime=${encodeURIComponent(endTime)}`;
  async function explain(user: SignedInUser, path: string, startTime: string, endTime: string) {
    return expectStatus(
      await call(t.app, user, 'GET', `${path}/availability/explain?${query(startTime, endTime)}`),
      200,
    ) as Explanation;
  }
  const codes = (e: Explanation) => e.resources[0]!.reasons.map((r) => [r.code, r.from, r.to]);

  /** An organisation in UTC with a type open 09:00-17:00 on weekdays, 60 minutes at least, a 30-minute buffer. */
  async function setup(type: Record<string, unknown> = {}) {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const rt = await createType(t.app, owner, {
      minBookingDuration: 60,
      bufferTime: 30,
      schedulePolicy: { operatingHours: weekdays('09:00', '17:00') },
      ...type,
    });
    const res = await createResource(t.app, owner, { name: 'Room', resourceTypeId: rt.id });
    return { owner, type: rt, res, path: `/api/resources/${res.id}` };
  }

  test('a free time is bookable with no reasons; the hours, a closed day and the minimum say why not', async () => {
    const { owner, res, path } = await setup();
    const mon = futureMonday();
    assert.deepEqual(await explain(owner, path, at(mon, 10), at(mon, 11)), {
      bookable: true,
      resources: [{ resourceId: res.id, bookable: true, reasons: [] }],
    });
    assert.deepEqual(codes(await explain(owner, path, at(mon, 8), at(mon, 10))), [
      ['OUTSIDE_HOURS', at(mon, 8), at(mon, 9)],
    ]);
    assert.deepEqual(codes(await explain(owner, path, at(mon, 16), at(mon, 18))), [
      ['OUTSIDE_HOURS', at(mon, 17), at(mon, 18)],
    ]);
    const sat = new Date(mon.getTime() - 2 * 86_400_000);
    const sunday = await explain(owner, path, at(sat, 10), at(sat, 34));
    assert.equal(sunday.bookable, false);
    // Closed days in a row are one reason.
    assert.deepEqual(codes(sunday), [['CLOSED_DAY', at(sat, 10), at(sat, 34)]]);
    assert.deepEqual(codes(await explain(owner, path, at(sat, 34), at(mon, 10))), [
      ['CLOSED_DAY', at(sat, 34), at(mon, 0)],
      ['OUTSIDE_HOURS', at(mon, 0), at(mon, 9)],
    ]);
    const short = await explain(owner, path, at(mon, 10), at(mon, 10, 30));
    assert.deepEqual(
      short.resources[0]!.reasons.map((r) => r.code),
      ['TOO_SHORT'],
    );
    assert.match(short.resources[0]!.reasons[0]!.message, /60 minutes/);
  });

  test('reservations, holds and their buffers name the part of the time they take', async () => {
    const { owner, res, path } = await setup();
    const mon = futureMonday();
    expectStatus(
      await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 11), endTime: at(mon, 12) }),
      201,
    );
    await ok(t.app, owner, 'POST', '/api/reservations/holds', {
      resourceId: res.id,
      startTime: at(mon, 14),
      endTime: at(mon, 15),
      customer: { name: 'Ada', email: 'ada@example.test' },
    });
    assert.deepEqual(codes(await explain(owner, path, at(mon, 10), at(mon, 16))), [
      ['BUFFER', at(mon, 10, 30), at(mon, 11)],
      ['BOOKED', at(mon, 11), at(mon, 12)],
      ['BUFFER', at(mon, 12), at(mon, 12, 30)],
      ['BUFFER', at(mon, 13, 30), at(mon, 14)],
      ['HELD', at(mon, 14), at(mon, 15)],
      ['BUFFER', at(mon, 15), at(mon, 15, 30)],
    ]);
    assert.deepEqual(codes(await explain(owner, path, at(mon, 12, 15), at(mon, 13, 15))), [
      ['BUFFER', at(mon, 12, 15), at(mon, 12, 30)],
    ]);
    assert.equal((await explain(owner, path, at(mon, 12, 30), at(mon, 13, 30))).bookable, true);
  });

  test('notice, advance, inactive resource and type, shift slots', async () => {
    const { owner, path } = await setup({
      schedulePolicy: null,
      bookingRules: { minNoticeMinutes: 120, maxAdvanceDays: 30 },
    });
    const soon = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
    const notice = await explain(owner, path, at(soon, 0), at(soon, 3));
    assert.deepEqual(
      notice.resources[0]!.reasons.map((r) => r.code),
      ['NOTICE'],
    );
    assert.ok(Date.parse(notice.resources[0]!.reasons[0]!.to!) > Date.parse(at(soon, 1)));
    const far = new Date(soon.getTime() + 40 * 86_400_000);
    assert.deepEqual(
      (await explain(owner, path, at(far, 0), at(far, 2))).resources[0]!.reasons.map((r) => r.code),
      ['ADVANCE'],
    );

    const mon = futureMonday();
    const shifts = await setup({
      schedulePolicy: {
        availabilityMode: 'shifts',
        shiftSchedule: [1, 2, 3, 4, 5].map((dayOfWeek) => ({
          dayOfWeek,
          slots: [{ startTime: '09:00', endTime: '12:00' }],
        })),
      },
    });
    assert.equal((await explain(shifts.owner, shifts.path, at(mon, 9), at(mon, 12))).bookable, true);
    assert.deepEqual(
      codes(await explain(shifts.owner, shifts.path, at(mon, 9), at(mon, 11))).map(([code]) => code),
      ['OFF_GRID'],
    );

    const { owner: o2, res, type, path: p2 } = await setup();
    await ok(t.app, o2, 'PATCH', `/api/resources/${res.id}`, { isActive: false });
    assert.deepEqual(
      (await explain(o2, p2, at(mon, 10), at(mon, 11))).resources[0]!.reasons.map((r) => r.code),
      ['INACTIVE'],
    );
    const typeAnswer = await explain(o2, `/api/resource-types/${type.id}`, at(mon, 10), at(mon, 11));
    assert.deepEqual(typeAnswer, {
      bookable: false,
      resources: [
        {
          resourceId: res.id,
          bookable: false,
          reasons: [
            { code: 'INACTIVE', message: 'The resource is not active', from: at(mon, 10), to: at(mon, 11) },
          ],
        },
      ],
    });
  });

  test("a lane answers for itself, under its parent's schedule and daily cap; its parent pools the lanes", async () => {
    const { owner, type } = await setup({ bufferTime: 0 });
    const desk = await createResource(t.app, owner, {
      name: 'Desk',
      resourceTypeId: type.id,
      capacity: 2,
      maxBookingsPerDay: 1,
    });
    const mon = futureMonday();
    const booked = expectStatus(
      await book(t.app, owner, { resourceId: desk.id, startTime: at(mon, 10), endTime: at(mon, 11) }),
      201,
    ) as { resourceId: number };
    const lanes = (await ok(t.app, owner, 'GET', `/api/resources?resourceTypeId=${type.id}`)) as Array<{
      id: number;
      parentResourceId: number | null;
    }>;
    const other = lanes.find((l) => l.parentResourceId === desk.id && l.id !== booked.resourceId)!;
    const lane = (id: number) => `/api/resources/${id}`;
    assert.deepEqual(codes(await explain(owner, lane(booked.resourceId), at(mon, 10), at(mon, 11))), [
      ['BOOKED', at(mon, 10), at(mon, 11)],
      ['DAILY_CAP', at(mon, 10), at(mon, 11)],
    ]);
    assert.deepEqual(codes(await explain(owner, lane(booked.resourceId), at(mon, 14), at(mon, 15))), [
      ['DAILY_CAP', at(mon, 14), at(mon, 15)],
    ]);
    assert.deepEqual(codes(await explain(owner, lane(booked.resourceId), at(mon, 7), at(mon, 8))), [
      ['OUTSIDE_HOURS', at(mon, 7), at(mon, 8)],
      ['DAILY_CAP', at(mon, 7), at(mon, 8)],
    ]);
    assert.equal((await explain(owner, lane(other.id), at(mon, 10), at(mon, 11))).bookable, true);
    const pooled = await explain(owner, lane(desk.id), at(mon, 10), at(mon, 11));
    assert.deepEqual(pooled, {
      bookable: true,
      resources: [{ resourceId: desk.id, bookable: true, reasons: [] }],
    });

    const stranger = await ownerWithOrganisation(t.app);
    const url = `${lane(other.id)}/availability/explain?${query(at(mon, 10), at(mon, 11))}`;
    expectStatus(await call(t.app, stranger, 'GET', url), 404, 'NOT_FOUND');
    await ok(t.app, owner, 'PATCH', lane(desk.id), { isActive: false });
    for (const id of [desk.id, other.id])
      assert.deepEqual(codes(await explain(owner, lane(id), at(mon, 10), at(mon, 11))), [
        ['INACTIVE', at(mon, 10), at(mon, 11)],
      ]);
  });

  test('a busy calendar is CALENDAR_BUSY, never what or whose', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { minBookingDuration: 30, bufferTime: 0 });
    const res = await createResource(t.app, owner, {
      name: 'Chair',
      resourceTypeId: type.id,
      managedById: owner.id,
      blockOnManagerCalendars: true,
    });
    const [calendar] = await ok(t.app, owner, 'GET', '/api/calendars');
    const mon = futureMonday();
    await ok(t.app, owner, 'POST', `/api/calendars/${calendar.id}/events`, {
      title: 'Dentist appointment',
      startTime: at(mon, 10),
      endTime: at(mon, 11),
    });
    const r = await call(
      t.app,
      owner,
      'GET',
      `/api/resources/${res.id}/availability/explain?${query(at(mon, 9), at(mon, 12))}`,
    );
    const body = expectStatus(r, 200) as Explanation;
    assert.deepEqual(codes(body), [['CALENDAR_BUSY', at(mon, 10), at(mon, 11)]]);
    assert.doesNotMatch(r.body, /Dentist|Owner|@/);
  });

  test('staff only, 404 across organisations, 400 naming the field', async () => {
    const { owner, res, type, path } = await setup();
    const mon = futureMonday();
    const url = `${path}/availability/explain?${query(at(mon, 10), at(mon, 11))}`;
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    expectStatus(await call(t.app, manager, 'GET', url), 200);
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    expectStatus(await call(t.app, member, 'GET', url), 403, 'FORBIDDEN');
    const stranger = await ownerWithOrganisation(t.app);
    expectStatus(await call(t.app, stranger, 'GET', url), 404, 'NOT_FOUND');
    expectStatus(
      await call(
        t.app,
        stranger,
        'GET',
        `/api/resource-types/${type.id}/availability/explain?${query(at(mon, 10), at(mon, 11))}`,
      ),
      404,
      'NOT_FOUND',
    );
    expectStatus(await call(t.app, null, 'GET', url), 401);
    const bad = (startTime: string, endTime: string) =>
      call(t.app, owner, 'GET', `/api/resources/${res.id}/availability/explain?${query(startTime, endTime)}`);
    assert.deepEqual(validationDetails(await bad(at(mon, 11), at(mon, 10))), [
      'querystring.endTime: must be after startTime',
    ]);
    assert.deepEqual(validationDetails(await bad(at(mon, 10), at(mon, 10))), [
      'querystring.endTime: must be after startTime',
    ]);
    assert.deepEqual(validationDetails(await bad(at(mon, 0), at(mon, 32 * 24))), [
      'querystring.endTime: range must be at most 31 days',
    ]);
    assert.match(validationDetails(await bad('yesterday', at(mon, 10)))[0]!, /^querystring\.startTime: /);
  });
});
