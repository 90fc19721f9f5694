import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registerUser, type SignedInUser, twoInstances } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { connected, mapCalendar, type SyncHarness, startSyncHarness } from '../../helpers/calendar-sync.js';
import { call, expectStatus } from '../../helpers/http.js';

/**
 * Bookings on the manager's calendar (issue 26): a confirmed reservation of a resource
 * with a `bookingCalendarId` appears there as an event, and at the provider after the
 * push; it moves on reschedule and goes on cancel; its own mirror never blocks it.
 */
describe('booking calendar mirror', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.stop());

  /** Runs the mirror and the pushes it queued. */
  async function mirrored() {
    await h.app.services.bookingCalendar.mirror();
    await h.idle();
  }
  const mirrorsIn = (calendarId: number) =>
    h.db.kysely
      .selectFrom('events')
      .select(['id', 'title', 'startTime', 'endTime', 'bookingReservationId', 'externalId'])
      .where('calendarId', '=', calendarId)
      .where('bookingReservationId', 'is not', null)
      .execute();

  async function setup(user: SignedInUser, bookingCalendarId: number) {
    expectStatus(
      await call(h.app, user, 'POST', '/api/organisations', { name: 'Salon', timezone: 'UTC' }),
      201,
    );
    const type = expectStatus(
      await call(h.app, user, 'POST', '/api/resource-types', { name: 'Chair', minBookingDuration: 30 }),
      201,
    );
    return expectStatus(
      await call(h.app, user, 'POST', '/api/resources', {
        name: 'Chair 1',
        resourceTypeId: type.id,
        capacity: 2,
        managedById: user.id,
        blockOnManagerCalendars: true,
        bookingCalendarId,
      }),
      201,
    ) as { id: number };
  }

  test('a booking appears in the manager calendar and at the provider, moves on reschedule, goes on cancel', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = h.a.createCalendar('alice@a.test', { summary: 'Bookings' }).id;
    const synced = await mapCalendar(h, user, 'calendar_provider_a', cal);
    const resource = await setup(user, synced.localCalendarId);
    const mon = futureMonday();

    const booked = expectStatus(
      await call(h.app, user, 'POST', '/api/reservations', {
        customer,
        resourceId: resource.id,
        startTime: at(mon, 10),
        endTime: at(mon, 11),
      }),
      201,
    );
    assert.equal(booked.status, 'confirmed');
    await mirrored();
    const [mirror] = await mirrorsIn(synced.localCalendarId);
    assert.ok(mirror, 'the booking is in the manager calendar');
    assert.equal(mirror.bookingReservationId, booked.id);
    assert.equal(Date.parse(mirror.startTime), Date.parse(at(mon, 10)));
    assert.ok(!mirror.title.includes(customer.name), 'no customer data in the mirror');
    assert.ok(mirror.externalId, 'pushed to the provider');
    const atProvider = () => h.a.getEvent('alice@a.test', cal, mirror.externalId!);
    const startAtProvider = () =>
      String((atProvider()?.start as { dateTime?: string } | undefined)?.dateTime).slice(0, 16);
    assert.equal(startAtProvider(), at(mon, 10).slice(0, 16));

    // Its own mirror (opaque, in the manager's calendar) blocks neither another lane nor its own move.
    expectStatus(
      await call(h.app, user, 'POST', '/api/reservations', {
        customer,
        resourceId: resource.id,
        startTime: at(mon, 10),
        endTime: at(mon, 11),
      }),
      201,
    );
    const moved = expectStatus(
      await call(h.app, user, 'POST', `/api/reservations/${booked.id}/reschedule`, {
        startTime: at(mon, 10, 30),
        endTime: at(mon, 11, 30),
      }),
      200,
    );
    assert.equal(moved.startTime, at(mon, 10, 30));
    await mirrored();
    const after = (await mirrorsIn(synced.localCalendarId)).find(
      (m) => m.bookingReservationId === booked.id,
    )!;
    assert.equal(after.id, mirror.id, 'the same event, moved');
    assert.equal(Date.parse(after.startTime), Date.parse(at(mon, 10, 30)));
    assert.equal(startAtProvider(), at(mon, 10, 30).slice(0, 16));

    expectStatus(await call(h.app, user, 'POST', `/api/reservations/${booked.id}/cancel`, {}), 200);
    await mirrored();
    assert.ok(
      !(await mirrorsIn(synced.localCalendarId)).some((m) => m.bookingReservationId === booked.id),
      'gone on cancel',
    );
    assert.equal(atProvider()?.status, 'cancelled', 'and at the provider');
    // Running again changes nothing (the position moved; applying is idempotent).
    assert.equal(await h.app.services.bookingCalendar.mirror(), 0);
  });

  test('a hold is not mirrored until confirmed; a resource without a booking calendar is not mirrored', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const [own] = expectStatus(await call(h.app, user, 'GET', '/api/calendars'), 200) as Array<{
      id: number;
    }>;
    const resource = await setup(user, own!.id);
    const mon = futureMonday();
    const held = expectStatus(
      await call(h.app, user, 'POST', '/api/reservations/holds', {
        customer,
        resourceId: resource.id,
        startTime: at(mon, 14),
        endTime: at(mon, 15),
      }),
      201,
    );
    await mirrored();
    assert.deepEqual(await mirrorsIn(own!.id), []);
    expectStatus(await call(h.app, user, 'POST', `/api/reservations/${held.id}/confirm`, {}), 200);
    await mirrored();
    assert.deepEqual(
      (await mirrorsIn(own!.id)).map((m) => m.bookingReservationId),
      [held.id],
    );
    // Without a booking calendar any more, a new booking is not mirrored.
    expectStatus(
      await call(h.app, user, 'PATCH', `/api/resources/${resource.id}`, { bookingCalendarId: null }),
      200,
    );
    const plain = expectStatus(
      await call(h.app, user, 'POST', '/api/reservations', {
        customer,
        resourceId: resource.id,
        startTime: at(mon, 16),
        endTime: at(mon, 17),
      }),
      201,
    );
    await mirrored();
    assert.ok(!(await mirrorsIn(own!.id)).some((m) => m.bookingReservationId === plain.id));
  });
});

describe('booking calendar mirror on two instances of one database', () => {
  test('both mirroring at once: each confirmed reservation mirrored exactly once, none of the cancelled', async () => {
    const { first, second, db, close } = await twoInstances();
    try {
      const user = await registerUser(first);
      expectStatus(
        await call(first, user, 'POST', '/api/organisations', { name: 'Twins', timezone: 'UTC' }),
        201,
      );
      const type = expectStatus(
        await call(first, user, 'POST', '/api/resource-types', { name: 'Room', minBookingDuration: 30 }),
        201,
      );
      const [own] = expectStatus(await call(first, user, 'GET', '/api/calendars'), 200) as Array<{
        id: number;
      }>;
      const resource = expectStatus(
        await call(first, user, 'POST', '/api/resources', {
          name: 'Room 1',
          resourceTypeId: type.id,
          managedById: user.id,
          bookingCalendarId: own!.id,
        }),
        201,
      );
      const mon = futureMonday();
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        const app = i % 2 === 0 ? first : second;
        const booked = expectStatus(
          await call(app, user, 'POST', '/api/reservations', {
            customer,
            resourceId: resource.id,
            startTime: at(mon, 8 + i),
            endTime: at(mon, 9 + i),
          }),
          201,
        );
        ids.push(booked.id);
      }
      const cancelled = ids.filter((_, i) => i % 4 === 0);
      for (const id of cancelled)
        expectStatus(await call(second, user, 'POST', `/api/reservations/${id}/cancel`, {}), 200);
      await Promise.all([
        first.services.bookingCalendar.mirror(),
        second.services.bookingCalendar.mirror(),
        first.services.bookingCalendar.mirror(),
        second.services.bookingCalendar.mirror(),
      ]);
      const mirrors = await db.kysely
        .selectFrom('events')
        .select(['bookingReservationId', 'startTime'])
        .where('calendarId', '=', own!.id)
        .where('bookingReservationId', 'is not', null)
        .orderBy('bookingReservationId')
        .execute();
      assert.deepEqual(
        mirrors.map((m) => m.bookingReservationId),
        ids.filter((id) => !cancelled.includes(id)),
      );
      assert.equal(await second.services.bookingCalendar.mirror(), 0, 'nothing left to apply');
    } finally {
      await close();
    }
  });
});
