import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { book } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus, validationDetails } from '../../helpers/http.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Busy time (issue 26): a resource with `blockOnManagerCalendars` is taken while its
 * manager has an opaque event in any of their calendars: in availability (uncached and
 * cached), in every booking write, recurring events expanded in their zone, all-day
 * events as whole local days; never revealing what the events are.
 */
const daily = (openTime: string, closeTime: string) =>
  [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, openTime, closeTime }));

/** Monday 2031-03-24 (the last week of winter time in Europe), 00:00 UTC. */
const MON = Date.parse('2031-03-24T00:00:00.000Z');
const at = (day: number, hour: number, minute = 0) =>
  new Date(MON + ((day * 24 + hour) * 60 + minute) * 60_000).toISOString();

describe('busy time blocks booking', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function calendarsOf(user: SignedInUser): Promise<Array<{ id: number; isDefault: boolean }>> {
    return expectStatus(await call(t.app, user, 'GET', '/api/calendars'), 200);
  }
  async function event(user: SignedInUser, calendarId: number, body: Record<string, unknown>) {
    return expectStatus(
      await call(t.app, user, 'POST', `/api/calendars/${calendarId}/events`, { title: 'Dentist', ...body }),
      201,
    ) as { id: number };
  }
  async function windows(user: SignedInUser, resourceId: number, from: string, to: string) {
    const r = await call(
      t.app,
      user,
      'GET',
      `/api/resources/${resourceId}/availability?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
    );
    const body = expectStatus(r, 200);
    return {
      body,
      raw: r.body,
      spans: body.windows.map((w: { start: string; end: string }) => [w.start, w.end]),
    };
  }

  // What these tests vary is the resource and the times.
  const bookFromTo = (user: SignedInUser, resourceId: number, startTime: string, endTime: string) =>
    book(t.app, user, { resourceId, startTime, endTime });

  /** An organisation in UTC, a type open 06:00-22:00 every day, and a resource its owner manages. */
  async function setup(resource: Record<string, unknown> = {}) {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      minBookingDuration: 30,
      bufferTime: 0,
      schedulePolicy: { operatingHours: daily('06:00', '22:00') },
    });
    const res = await createResource(t.app, owner, {
      name: 'Chair',
      resourceTypeId: type.id,
      managedById: owner.id,
      blockOnManagerCalendars: true,
      ...resource,
    });
    const [calendar] = await calendarsOf(owner);
    return { owner, type, res, calendarId: calendar!.id };
  }

  test('bad input: blocking without a manager, a booking calendar the manager does not own', async () => {
    const owner = await ownerWithOrganisation(t.app);
    const type = await createType(t.app, owner);
    assert.deepEqual(
      validationDetails(
        await call(t.app, owner, 'POST', '/api/resources', {
          name: 'Chair',
          resourceTypeId: type.id,
          blockOnManagerCalendars: true,
        }),
      ),
      ['body.blockOnManagerCalendars: a resource without managedById has no calendars to block on'],
    );
    const res = await createResource(t.app, owner, { name: 'Chair', resourceTypeId: type.id });
    assert.equal(res.blockOnManagerCalendars, false, 'default false');
    assert.equal(res.bookingCalendarId, null);
    validationDetails(
      await call(t.app, owner, 'PATCH', `/api/resources/${res.id}`, { blockOnManagerCalendars: true }),
    );

    // A member's calendar is not the owner's: refused as the owner-manager's booking calendar.
    const member = await memberWithRole(t.app, owner as OrgOwner, 'MEMBER');
    const [theirs] = await calendarsOf(member);
    assert.deepEqual(
      validationDetails(
        await call(t.app, owner, 'PATCH', `/api/resources/${res.id}`, {
          managedById: owner.id,
          bookingCalendarId: theirs!.id,
        }),
      ),
      ['body.bookingCalendarId: must be a calendar owned by the managedById member'],
    );
    // Without a manager, no booking calendar either.
    const [mine] = await calendarsOf(owner);
    validationDetails(
      await call(t.app, owner, 'PATCH', `/api/resources/${res.id}`, { bookingCalendarId: mine!.id }),
    );
    const updated = expectStatus(
      await call(t.app, owner, 'PATCH', `/api/resources/${res.id}`, {
        managedById: owner.id,
        blockOnManagerCalendars: true,
        bookingCalendarId: mine!.id,
      }),
      200,
    );
    assert.equal(updated.blockOnManagerCalendars, true);
    assert.equal(updated.bookingCalendarId, mine!.id);
    // Dropping the manager drops what reached into their calendars with them (DECISIONS.md
    // "A member's calendars are theirs"), rather than being refused.
    const unmanaged = expectStatus(
      await call(t.app, owner, 'PATCH', `/api/resources/${res.id}`, { managedById: null }),
      200,
    );
    assert.deepEqual(
      [unmanaged.managedById, unmanaged.blockOnManagerCalendars, unmanaged.bookingCalendarId],
      [null, false, null],
    );
  });

  test('an opaque event of the manager takes the time; a transparent one does not; nothing about it shows', async () => {
    const { owner, res, calendarId } = await setup();
    // Read first: the cached answer must not survive the new meeting.
    const before = await windows(owner, res.id, at(0, 0), at(1, 0));
    assert.deepEqual(before.spans, [[at(0, 6), at(0, 22)]]);

    const meeting = await event(owner, calendarId, {
      title: 'Secret board meeting',
      startTime: at(0, 10),
      endTime: at(0, 11),
    });
    await event(owner, calendarId, {
      title: 'Focus time (free)',
      startTime: at(0, 14),
      endTime: at(0, 16),
      transparency: 'transparent',
    });
    const day = await windows(owner, res.id, at(0, 0), at(1, 0));
    assert.deepEqual(day.spans, [
      [at(0, 6), at(0, 10)],
      [at(0, 11), at(0, 22)],
    ]);
    assert.ok(!day.raw.includes('Secret'), 'no title in availability');
    assert.ok(!day.raw.includes(`"eventId"`) && !day.raw.includes(`"id":${meeting.id}`), 'no event id');

    const refused = await bookFromTo(owner, res.id, at(0, 10, 30), at(0, 11, 30));
    expectStatus(refused, 409, 'SLOT_UNAVAILABLE');
    assert.ok(!refused.body.includes('Secret'), 'the refusal names no event');
    expectStatus(await bookFromTo(owner, res.id, at(0, 14), at(0, 15)), 201);
    expectStatus(await bookFromTo(owner, res.id, at(0, 11), at(0, 12)), 201);

    // Marked free, the meeting no longer blocks (and the cached answer follows).
    expectStatus(
      await call(t.app, owner, 'PATCH', `/api/events/${meeting.id}`, { transparency: 'transparent' }),
      200,
    );
    const freed = await windows(owner, res.id, at(0, 0), at(1, 0));
    assert.deepEqual(freed.spans, [
      [at(0, 6), at(0, 11)],
      [at(0, 12), at(0, 14)],
      [at(0, 15), at(0, 22)],
    ]);
    expectStatus(await bookFromTo(owner, res.id, at(0, 10), at(0, 11)), 201);
  });

  test('any calendar of the manager blocks; a resource without the flag, or another person, is not blocked', async () => {
    const { owner, type, res } = await setup();
    const second = expectStatus(
      await call(t.app, owner, 'POST', '/api/calendars', { name: 'Work', timezone: 'Europe/Berlin' }),
      201,
    );
    await event(owner, second.id, { startTime: at(1, 9), endTime: at(1, 10) });
    const plain = await createResource(t.app, owner, {
      name: 'Plain chair',
      resourceTypeId: type.id,
      managedById: owner.id,
    });
    const other = await memberWithRole(t.app, owner, 'MEMBER');
    const [theirs] = await calendarsOf(other);
    await event(other, theirs!.id, { startTime: at(1, 12), endTime: at(1, 13) });

    assert.deepEqual((await windows(owner, res.id, at(1, 0), at(2, 0))).spans, [
      [at(1, 6), at(1, 9)],
      [at(1, 10), at(1, 22)],
    ]);
    assert.deepEqual((await windows(owner, plain.id, at(1, 0), at(2, 0))).spans, [[at(1, 6), at(1, 22)]]);
    expectStatus(await bookFromTo(owner, res.id, at(1, 9), at(1, 10)), 409, 'SLOT_UNAVAILABLE');
    expectStatus(await bookFromTo(owner, plain.id, at(1, 9), at(1, 10)), 201);

    // Type availability shows the same, per resource.
    const typed = expectStatus(
      await call(
        t.app,
        owner,
        'GET',
        `/api/resource-types/${type.id}/availability?from=${encodeURIComponent(at(1, 0))}&to=${encodeURIComponent(at(2, 0))}`,
      ),
      200,
    );
    const blocking = typed.resources.find((r: { resourceId: number }) => r.resourceId === res.id);
    assert.deepEqual(
      blocking.windows.map((w: { start: string; end: string }) => [w.start, w.end]),
      [
        [at(1, 6), at(1, 9)],
        [at(1, 10), at(1, 22)],
      ],
    );
  });

  test('a weekly event blocks each occurrence at its local time across the daylight-saving change', async () => {
    const { owner, res, calendarId } = await setup();
    // Mondays 09:00-10:00 in Berlin: 08:00Z before 30 March 2031, 07:00Z after.
    await event(owner, calendarId, {
      startTime: '2031-03-24T09:00:00+01:00',
      endTime: '2031-03-24T10:00:00+01:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'],
    });
    assert.deepEqual((await windows(owner, res.id, at(0, 0), at(1, 0))).spans, [
      [at(0, 6), at(0, 8)],
      [at(0, 9), at(0, 22)],
    ]);
    assert.deepEqual((await windows(owner, res.id, at(7, 0), at(8, 0))).spans, [
      [at(7, 6), at(7, 7)],
      [at(7, 8), at(7, 22)],
    ]);
    expectStatus(await bookFromTo(owner, res.id, at(7, 7), at(7, 8)), 409, 'SLOT_UNAVAILABLE');
    expectStatus(await bookFromTo(owner, res.id, at(7, 8), at(7, 9)), 201);
    // Tuesday is not an occurrence.
    expectStatus(await bookFromTo(owner, res.id, at(8, 7), at(8, 8)), 201);
  });

  test('an all-day event takes the whole local day of its zone', async () => {
    const { owner, res, calendarId } = await setup({ capacity: 2 });
    // 26 March in New York: 04:00Z on the 26th to 04:00Z on the 27th (daylight time there).
    await event(owner, calendarId, {
      startTime: '2031-03-26T00:00:00-04:00',
      endTime: '2031-03-27T00:00:00-04:00',
      allDay: true,
      timezone: 'America/New_York',
    });
    const day = await windows(owner, res.id, at(2, 0), at(4, 0));
    assert.deepEqual(day.spans, [[at(3, 6), at(3, 22)]]);
    // Every lane of the resource is taken: a capacity of 2 does not help.
    expectStatus(await bookFromTo(owner, res.id, at(2, 12), at(2, 13)), 409, 'SLOT_UNAVAILABLE');
  });

  test('a reschedule into busy time is refused; out of it, allowed', async () => {
    const { owner, res, calendarId } = await setup();
    const booked = expectStatus(await bookFromTo(owner, res.id, at(4, 9), at(4, 10)), 201);
    await event(owner, calendarId, { startTime: at(4, 12), endTime: at(4, 13) });
    expectStatus(
      await call(t.app, owner, 'POST', `/api/reservations/${booked.id}/reschedule`, {
        startTime: at(4, 12, 30),
        endTime: at(4, 13, 30),
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    const moved = expectStatus(
      await call(t.app, owner, 'POST', `/api/reservations/${booked.id}/reschedule`, {
        startTime: at(4, 13),
        endTime: at(4, 14),
      }),
      200,
    );
    assert.equal(moved.startTime, at(4, 13));
  });
});
