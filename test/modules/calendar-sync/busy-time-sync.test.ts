import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SignedInUser } from '../../helpers/app.js';
import {
  connected,
  force,
  localEvents,
  mapCalendar,
  type SyncHarness,
  startSyncHarness,
} from '../../helpers/calendar-sync.js';
import { call, expectStatus } from '../../helpers/http.js';

const DAY = 86_400_000;
/** A day a few days ahead (B lists a window around today), as `YYYY-MM-DD`. */
const dayFromNow = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);

/**
 * Busy time through calendar sync (issue 26): the provider's free/busy flag (A
 * `transparency`, B `showAs`) is mapped onto the event's `transparency` both ways, and
 * an event at the provider blocks the manager's resource after the next sync.
 */
describe('busy time from synced calendars', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.stop());

  /** The user's organisation, a type open all day, and a resource they manage that blocks on their calendars. */
  async function blockingResource(user: SignedInUser) {
    expectStatus(
      await call(h.app, user, 'POST', '/api/organisations', { name: 'Salon', timezone: 'UTC' }),
      201,
    );
    const type = expectStatus(
      await call(h.app, user, 'POST', '/api/resource-types', {
        name: 'Chair',
        minBookingDuration: 30,
        schedulePolicy: {
          operatingHours: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
            dayOfWeek,
            openTime: '06:00',
            closeTime: '22:00',
          })),
        },
      }),
      201,
    );
    return expectStatus(
      await call(h.app, user, 'POST', '/api/resources', {
        name: 'Chair 1',
        resourceTypeId: type.id,
        managedById: user.id,
        blockOnManagerCalendars: true,
      }),
      201,
    ) as { id: number };
  }
  async function windows(user: SignedInUser, resourceId: number, day: string) {
    const from = encodeURIComponent(`${day}T00:00:00.000Z`);
    const to = encodeURIComponent(new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY).toISOString());
    const body = expectStatus(
      await call(h.app, user, 'GET', `/api/resources/${resourceId}/availability?from=${from}&to=${to}`),
      200,
    );
    return body.windows.map((w: { start: string; end: string }) => [
      w.start.slice(11, 16),
      w.end.slice(11, 16),
    ]);
  }

  test('A: an event at the provider blocks the resource after the next sync; marked free it does not', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const resource = await blockingResource(user);
    const cal = h.a.createCalendar('alice@a.test', { summary: 'Busy A' }).id;
    const synced = await mapCalendar(h, user, 'calendar_provider_a', cal);
    const day = '2031-03-24';
    assert.deepEqual(await windows(user, resource.id, day), [['06:00', '22:00']]);

    const meeting = h.a.createEvent('alice@a.test', cal, {
      summary: 'Board meeting',
      start: { dateTime: `${day}T10:00:00Z` },
      end: { dateTime: `${day}T11:00:00Z` },
    });
    await force(h, user);
    assert.deepEqual(await windows(user, resource.id, day), [
      ['06:00', '10:00'],
      ['11:00', '22:00'],
    ]);
    const [local] = await localEvents(h, synced.localCalendarId);
    const read = expectStatus(await call(h.app, user, 'GET', `/api/events/${local!.id}`), 200);
    assert.equal(read.transparency, 'opaque');

    h.a.updateEvent('alice@a.test', cal, meeting.id, { transparency: 'transparent' });
    await force(h, user);
    assert.equal(
      expectStatus(await call(h.app, user, 'GET', `/api/events/${local!.id}`), 200).transparency,
      'transparent',
    );
    assert.deepEqual(await windows(user, resource.id, day), [['06:00', '22:00']]);

    // A local change of the flag travels back to the provider.
    expectStatus(
      await call(h.app, user, 'PATCH', `/api/events/${local!.id}`, { transparency: 'opaque' }),
      200,
    );
    await h.idle();
    assert.equal(h.a.getEvent('alice@a.test', cal, meeting.id)?.transparency, 'opaque');
    assert.deepEqual(await windows(user, resource.id, day), [
      ['06:00', '10:00'],
      ['11:00', '22:00'],
    ]);
  });

  test('B: showAs free does not block; busy (and tentative) does; a local free event is pushed as free', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const resource = await blockingResource(user);
    const cal = h.b.createCalendar('alice@b.test', { name: 'Busy B' }).id;
    const synced = await mapCalendar(h, user, 'calendar_provider_b', cal);
    const day = dayFromNow(5);
    h.b.createEvent('alice@b.test', cal, {
      subject: 'Out for lunch (free)',
      showAs: 'free',
      start: { dateTime: `${day}T12:00:00`, timeZone: 'UTC' },
      end: { dateTime: `${day}T13:00:00`, timeZone: 'UTC' },
    });
    h.b.createEvent('alice@b.test', cal, {
      subject: 'Maybe',
      showAs: 'tentative',
      start: { dateTime: `${day}T15:00:00`, timeZone: 'UTC' },
      end: { dateTime: `${day}T16:00:00`, timeZone: 'UTC' },
    });
    await force(h, user);
    assert.deepEqual(await windows(user, resource.id, day), [
      ['06:00', '15:00'],
      ['16:00', '22:00'],
    ]);

    const created = expectStatus(
      await call(h.app, user, 'POST', `/api/calendars/${synced.localCalendarId}/events`, {
        title: 'Gym (free)',
        startTime: `${day}T18:00:00Z`,
        endTime: `${day}T19:00:00Z`,
        transparency: 'transparent',
      }),
      201,
    );
    await h.idle();
    const pushed = h.b.listEvents('alice@b.test', cal).find((e) => e.subject === 'Gym (free)');
    assert.equal(pushed?.showAs, 'free');
    assert.equal(created.transparency, 'transparent');
    assert.deepEqual(await windows(user, resource.id, day), [
      ['06:00', '15:00'],
      ['16:00', '22:00'],
    ]);
  });
});
