import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  connect,
  connected,
  force,
  localEvents,
  mapCalendar,
  type SyncHarness,
  startSyncHarness,
  status,
} from '../../helpers/calendar-sync.js';
import { feedReader } from '../outbox/helpers.js';

const DAY = 86_400_000;
/** A day `n` days from today, `YYYY-MM-DD` (B lists a window around today). */
const dayFromNow = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);

describe('calendar sync engine against the emulators', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.stop());

  let counter = 0;
  const calendarA = () =>
    h.a.createCalendar('alice@a.test', { summary: `A ${++counter}`, timeZone: 'Europe/Berlin' }).id;
  const calendarB = () => h.b.createCalendar('alice@b.test', { name: `B ${++counter}` }).id;
  const timedA = (summary: string, start: string, end: string, extra: Record<string, unknown> = {}) => ({
    summary,
    start: { dateTime: start },
    end: { dateTime: end },
    ...extra,
  });
  const timedB = (
    subject: string,
    day: string,
    from: string,
    to: string,
    extra: Record<string, unknown> = {},
  ) => ({
    subject,
    start: { dateTime: `${day}T${from}:00`, timeZone: 'UTC' },
    end: { dateTime: `${day}T${to}:00`, timeZone: 'UTC' },
    ...extra,
  });

  test('A: incremental sync of creates, updates and deletions', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = calendarA();
    const first = h.a.createEvent(
      'alice@a.test',
      cal,
      timedA('First', '2030-05-01T09:00:00+02:00', '2030-05-01T10:00:00+02:00'),
    );
    const second = h.a.createEvent(
      'alice@a.test',
      cal,
      timedA('Second', '2030-05-02T09:00:00Z', '2030-05-02T10:30:00Z', {
        location: 'Room 1',
        description: 'Agenda',
      }),
    );
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_a', cal);
    let events = await localEvents(h, localCalendarId);
    assert.deepEqual(
      events.map((e) => [e.title, e.startTime, e.endTime, e.location, e.description]),
      [
        ['First', '2030-05-01T07:00:00.000Z', '2030-05-01T08:00:00.000Z', null, null],
        ['Second', '2030-05-02T09:00:00.000Z', '2030-05-02T10:30:00.000Z', 'Room 1', 'Agenda'],
      ],
    );
    assert.equal(events[0]!.external?.externalId, first.id);
    assert.equal(events[0]!.external?.etag, first.etag);

    h.a.clearRequests();
    h.a.createEvent('alice@a.test', cal, timedA('Third', '2030-05-03T09:00:00Z', '2030-05-03T10:00:00Z'));
    h.a.updateEvent('alice@a.test', cal, second.id, {
      summary: 'Second, moved',
      start: { dateTime: '2030-05-04T09:00:00Z' },
      end: { dateTime: '2030-05-04T10:00:00Z' },
    });
    h.a.deleteEvent('alice@a.test', cal, first.id);
    await force(h, user);
    // Incremental: the stored sync token was used.
    const list = h.a.requests().filter((r) => r.path.endsWith('/events') && r.method === 'GET');
    assert.ok(list.length >= 1 && list.every((r) => r.query.syncToken), 'listed from the sync token');
    events = await localEvents(h, localCalendarId);
    assert.deepEqual(
      events.map((e) => [e.title, e.startTime]),
      [
        ['Second, moved', '2030-05-04T09:00:00.000Z'],
        ['Third', '2030-05-03T09:00:00.000Z'],
      ],
    );
    // The local ids of unchanged events stay.
    const again = await localEvents(h, localCalendarId);
    await force(h, user);
    assert.deepEqual(await localEvents(h, localCalendarId), again);
  });

  test('B: incremental sync of creates, updates and deletions (calendarView delta)', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const cal = calendarB();
    const day = dayFromNow(3);
    const one = h.b.createEvent(
      'alice@b.test',
      cal,
      timedB('One', day, '09:00', '10:00', { location: { displayName: 'Room B' } }),
    );
    const two = h.b.createEvent('alice@b.test', cal, timedB('Two', day, '11:00', '12:00'));
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_b', cal);
    let events = await localEvents(h, localCalendarId);
    assert.deepEqual(
      events.map((e) => [e.title, e.startTime, e.location]),
      [
        ['One', `${day}T09:00:00.000Z`, 'Room B'],
        ['Two', `${day}T11:00:00.000Z`, null],
      ],
    );
    h.b.clearRequests();
    h.b.createEvent('alice@b.test', cal, timedB('Three', day, '13:00', '14:00'));
    h.b.updateEvent('alice@b.test', cal, one.id, { subject: 'One, renamed' });
    h.b.deleteEvent('alice@b.test', cal, two.id);
    await force(h, user);
    assert.ok(
      h.b.requests().some((r) => r.path.endsWith('/calendarView/delta') && r.query.$deltatoken),
      'listed from the delta link',
    );
    events = await localEvents(h, localCalendarId);
    assert.deepEqual(
      events.map((e) => e.title),
      ['One, renamed', 'Three'],
    );
  });

  test('410: the expired cursor leads to a full resync without duplicates or losses', async () => {
    for (const provider of ['calendar_provider_a', 'calendar_provider_b'] as const) {
      const user = await connected(h, provider);
      const isA = provider === 'calendar_provider_a';
      const cal = isA ? calendarA() : calendarB();
      const day = dayFromNow(4);
      const make = (title: string, hour: string) =>
        isA
          ? h.a.createEvent(
              'alice@a.test',
              cal,
              timedA(title, `${day}T${hour}:00:00Z`, `${day}T${hour}:30:00Z`),
            )
          : h.b.createEvent('alice@b.test', cal, timedB(title, day, `${hour}:00`, `${hour}:30`));
      const keep = make('Keep', '08');
      const change = make('Change', '09');
      const gone = make('Gone', '10');
      const { localCalendarId } = await mapCalendar(h, user, provider, cal);
      const before = await localEvents(h, localCalendarId);
      assert.equal(before.length, 3);

      if (isA) {
        h.a.expireSyncTokens();
        h.a.updateEvent('alice@a.test', cal, change.id, { summary: 'Changed' });
        h.a.deleteEvent('alice@a.test', cal, gone.id);
      } else {
        h.b.expireSyncTokens();
        h.b.updateEvent('alice@b.test', cal, change.id, { subject: 'Changed' });
        h.b.deleteEvent('alice@b.test', cal, gone.id);
      }
      make('New', '11');
      await force(h, user);
      const after = await localEvents(h, localCalendarId);
      assert.deepEqual(
        after.map((e) => e.title),
        ['Changed', 'Keep', 'New'],
        provider,
      );
      // The same local rows for events that survived: upserted by provider id, not re-created.
      const idOf = (list: typeof before, externalId: string) =>
        list.find((e) => e.external?.externalId === externalId)?.id;
      assert.equal(idOf(after, keep.id), idOf(before, keep.id));
      assert.equal(idOf(after, change.id), idOf(before, change.id));
      assert.equal((await status(h.app, user, provider)).lastError, null);
    }
  });

  test('A: all-day events, recurring series and cancellations', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = calendarA();
    h.a.createEvent('alice@a.test', cal, {
      summary: 'Holiday',
      start: { date: '2030-06-10' },
      end: { date: '2030-06-12' },
    });
    const weekly = h.a.createEvent('alice@a.test', cal, {
      summary: 'Weekly',
      start: { dateTime: '2030-06-03T09:00:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2030-06-03T10:00:00', timeZone: 'Europe/Berlin' },
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5', 'EXDATE;TZID=Europe/Berlin:20300610T090000'],
    });
    const cancelled = h.a.createEvent(
      'alice@a.test',
      cal,
      timedA('Cancelled soon', '2030-06-05T09:00:00Z', '2030-06-05T10:00:00Z'),
    );
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_a', cal);
    let events = await localEvents(h, localCalendarId);
    const holiday = events.find((e) => e.title === 'Holiday')!;
    // All-day: local midnight of the provider calendar's zone, the end date exclusive.
    assert.equal(holiday.allDay, true);
    assert.equal(holiday.timezone, 'Europe/Berlin');
    assert.equal(holiday.startTime, '2030-06-09T22:00:00.000Z');
    assert.equal(holiday.endTime, '2030-06-11T22:00:00.000Z');
    const series = events.find((e) => e.title === 'Weekly')!;
    assert.deepEqual(series.recurrence, [
      'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5',
      'EXDATE;TZID=Europe/Berlin:20300610T090000',
    ]);
    assert.equal(series.timezone, 'Europe/Berlin');
    // The occurrences the local calendar shows match the provider's rule and exclusion.
    const occurrences = await h.app.inject({
      method: 'GET',
      url: `/api/calendars/${localCalendarId}/events?from=2030-06-01T00:00:00Z&to=2030-07-15T00:00:00Z`,
      headers: user.auth,
    });
    assert.equal(occurrences.statusCode, 200, occurrences.body);
    const weeklyStarts = occurrences
      .json()
      .filter((o: { eventId: number }) => o.eventId === series.id)
      .map((o: { startTime: string }) => o.startTime);
    assert.deepEqual(weeklyStarts, [
      '2030-06-03T07:00:00.000Z',
      '2030-06-17T07:00:00.000Z',
      '2030-06-24T07:00:00.000Z',
      '2030-07-01T07:00:00.000Z',
    ]);

    // A cancellation at the provider removes the local event; a changed rule follows.
    h.a.deleteEvent('alice@a.test', cal, cancelled.id);
    h.a.updateEvent('alice@a.test', cal, weekly.id, { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2'] });
    await force(h, user);
    events = await localEvents(h, localCalendarId);
    assert.deepEqual(
      events.map((e) => e.title),
      ['Holiday', 'Weekly'],
    );
    assert.deepEqual(events.find((e) => e.title === 'Weekly')!.recurrence, [
      'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2',
    ]);
  });

  test('B: recurring series arrive as occurrences; a deleted occurrence and all-day events', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const cal = calendarB();
    const start = dayFromNow(2);
    h.b.createEvent('alice@b.test', cal, {
      ...timedB('Standup', start, '09:00', '09:15'),
      recurrence: {
        pattern: { type: 'daily', interval: 1 },
        range: { type: 'numbered', startDate: start, numberOfOccurrences: 3 },
      },
    });
    const allDay = dayFromNow(6);
    const allDayEnd = dayFromNow(7);
    h.b.createEvent('alice@b.test', cal, {
      subject: 'Offsite',
      isAllDay: true,
      start: { dateTime: `${allDay}T00:00:00`, timeZone: 'UTC' },
      end: { dateTime: `${allDayEnd}T00:00:00`, timeZone: 'UTC' },
    });
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_b', cal);
    let events = await localEvents(h, localCalendarId);
    const standups = events.filter((e) => e.title === 'Standup');
    assert.equal(standups.length, 3);
    assert.deepEqual(
      standups.map((e) => e.startTime).sort(),
      [0, 1, 2].map((n) => `${dayFromNow(2 + n)}T09:00:00.000Z`),
    );
    const offsite = events.find((e) => e.title === 'Offsite')!;
    assert.equal(offsite.allDay, true);
    assert.equal(offsite.startTime, `${allDay}T00:00:00.000Z`);
    assert.equal(offsite.endTime, `${allDayEnd}T00:00:00.000Z`);

    // Deleting one occurrence at the provider removes exactly that one.
    const second = standups.find((e) => e.startTime.startsWith(dayFromNow(3)))!;
    h.b.deleteEvent('alice@b.test', cal, second.external!.externalId);
    await force(h, user);
    events = await localEvents(h, localCalendarId);
    assert.deepEqual(
      events
        .filter((e) => e.title === 'Standup')
        .map((e) => e.startTime)
        .sort(),
      [`${dayFromNow(2)}T09:00:00.000Z`, `${dayFromNow(4)}T09:00:00.000Z`],
    );
  });

  test('reminders: imported and clamped when asked; local ones untouched otherwise', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const on = calendarA();
    const off = calendarA();
    for (const cal of [on, off]) {
      h.a.createEvent(
        'alice@a.test',
        cal,
        timedA('Overrides', '2030-07-01T09:00:00Z', '2030-07-01T10:00:00Z', {
          reminders: {
            useDefault: false,
            overrides: [
              { method: 'email', minutes: 2880 },
              { method: 'popup', minutes: 5 },
            ],
          },
        }),
      );
      h.a.createEvent(
        'alice@a.test',
        cal,
        timedA('Defaults', '2030-07-02T09:00:00Z', '2030-07-02T10:00:00Z'),
      );
    }
    const withReminders = await mapCalendar(h, user, 'calendar_provider_a', on, { importReminders: true });
    const events = await localEvents(h, withReminders.localCalendarId);
    assert.deepEqual(events.find((e) => e.title === 'Overrides')!.reminders, [
      { minutes: 1440, method: 'email' },
      { minutes: 5, method: 'popup' },
    ]);
    // useDefault: the calendar's default reminders.
    assert.deepEqual(events.find((e) => e.title === 'Defaults')!.reminders, [
      { minutes: 10, method: 'popup' },
    ]);

    const without = await mapCalendar(h, user, 'calendar_provider_a', off, {
      importReminders: false,
      bidirectionalSync: false,
    });
    const local = await localEvents(h, without.localCalendarId);
    const target = local.find((e) => e.title === 'Overrides')!;
    assert.deepEqual(target.reminders, []);
    // The user sets their own reminder; the provider then changes the event.
    const patched = await h.app.inject({
      method: 'PATCH',
      url: `/api/events/${target.id}`,
      headers: user.auth,
      payload: { reminders: [{ minutes: 30, method: 'popup' }] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    h.a.updateEvent('alice@a.test', off, target.external!.externalId, {
      summary: 'Overrides, renamed',
      reminders: { useDefault: false, overrides: [{ method: 'popup', minutes: 60 }] },
    });
    await force(h, user);
    const after = (await localEvents(h, without.localCalendarId)).find((e) => e.id === target.id)!;
    assert.equal(after.title, 'Overrides, renamed');
    assert.deepEqual(after.reminders, [{ minutes: 30, method: 'popup' }]);
  });

  test('access tokens are refreshed; a revoked grant asks for a reconnect, without a retry loop', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = calendarA();
    h.a.createEvent('alice@a.test', cal, timedA('Before', '2030-08-01T09:00:00Z', '2030-08-01T10:00:00Z'));
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_a', cal);

    // Expired access token: one refresh, then the call succeeds.
    h.a.expireAccessTokens('alice@a.test');
    h.a.clearRequests();
    h.a.createEvent(
      'alice@a.test',
      cal,
      timedA('After refresh', '2030-08-02T09:00:00Z', '2030-08-02T10:00:00Z'),
    );
    await force(h, user);
    assert.ok((await localEvents(h, localCalendarId)).some((e) => e.title === 'After refresh'));
    assert.equal(h.a.requests().filter((r) => r.path === '/token').length, 1);
    assert.equal((await status(h.app, user, 'calendar_provider_a')).isConnected, true);

    // Revoked grant: marked needs_reconnect, visible in status, and the job does not retry.
    const feed = feedReader(h.app, user, '/api/me/events');
    await feed.next();
    h.a.revokeGrants('alice@a.test');
    h.a.clearRequests();
    await force(h, user);
    const item = await status(h.app, user, 'calendar_provider_a');
    const announced = await feed.next();
    assert.deepEqual(
      announced.map((event) => [event.type, event.userId, event.organisationId]),
      [['calendar_sync.needs_reconnect', user.id, null]],
    );
    assert.deepEqual(announced[0]!.data, item, 'the provider’s status entry');
    assert.equal(item.isConnected, false);
    assert.equal(item.connectionState, 'needs_reconnect');
    assert.equal(item.lastError.code, 'GRANT_REVOKED');
    assert.equal(item.syncedCalendars.length, 1, 'the mapping waits for the reconnect');
    const calls = h.a.requests().length;
    assert.ok(calls <= 4, `a bounded number of provider calls (${calls})`);
    await force(h, user);
    assert.equal(h.a.requests().length, calls, 'no more calls while it needs a reconnect');
    assert.deepEqual(await feed.next(), [], 'announced once');

    // Reconnecting resumes the mapped calendar.
    h.a.createEvent(
      'alice@a.test',
      cal,
      timedA('After reconnect', '2030-08-03T09:00:00Z', '2030-08-03T10:00:00Z'),
    );
    await connect(h, user, 'calendar_provider_a');
    await h.idle();
    const resumed = await status(h.app, user, 'calendar_provider_a');
    assert.equal(resumed.connectionState, 'connected');
    assert.equal(resumed.lastError, null);
    assert.ok((await localEvents(h, localCalendarId)).some((e) => e.title === 'After reconnect'));
  });

  test('a provider outage is recorded, retried with backoff, and never blocks a request', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const cal = calendarB();
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_b', cal);
    h.b.setBehaviour('fail', { times: 4 });
    h.b.createEvent('alice@b.test', cal, timedB('Through the outage', dayFromNow(1), '09:00', '10:00'));
    const started = Date.now();
    const r = await h.app.inject({ method: 'POST', url: '/api/calendar-sync/force', headers: user.auth });
    assert.equal(r.statusCode, 200);
    assert.ok(Date.now() - started < 1000, 'force answers at once');
    await h.idle();
    assert.ok((await localEvents(h, localCalendarId)).some((e) => e.title === 'Through the outage'));
    assert.equal(
      (await status(h.app, user, 'calendar_provider_b')).lastError,
      null,
      'cleared by the later success',
    );
  });

  async function pushBack(provider: 'calendar_provider_a' | 'calendar_provider_b') {
    const isA = provider === 'calendar_provider_a';
    const user = await connected(h, provider);
    const cal = isA ? calendarA() : calendarB();
    const { localCalendarId } = await mapCalendar(h, user, provider, cal);
    const emulatorEvents = () =>
      isA ? h.a.listEvents('alice@a.test', cal) : h.b.listEvents('alice@b.test', cal);
    const titleOf = (e: Record<string, unknown>) => (isA ? e.summary : e.subject);
    return { user, cal, localCalendarId, emulatorEvents, titleOf, isA };
  }

  for (const provider of ['calendar_provider_a', 'calendar_provider_b'] as const) {
    test(`${provider}: local creates, edits and deletes are pushed with If-Match; a 412 keeps the provider's version`, async () => {
      const { user, cal, localCalendarId, emulatorEvents, titleOf, isA } = await pushBack(provider);
      const emulator = isA ? h.a : h.b;
      const day = dayFromNow(8);
      const created = await h.app.inject({
        method: 'POST',
        url: `/api/calendars/${localCalendarId}/events`,
        headers: user.auth,
        payload: { title: 'Made here', startTime: `${day}T09:00:00Z`, endTime: `${day}T10:00:00Z` },
      });
      assert.equal(created.statusCode, 201, created.body);
      await h.idle();
      const remote = emulatorEvents().find((e) => titleOf(e) === 'Made here');
      assert.ok(remote, 'created at the provider');
      let local = (await localEvents(h, localCalendarId)).find((e) => e.title === 'Made here')!;
      assert.equal(local.external?.externalId, remote.id);

      // An edit goes out with the stored ETag.
      emulator.clearRequests();
      const edited = await h.app.inject({
        method: 'PATCH',
        url: `/api/events/${local.id}`,
        headers: user.auth,
        payload: { title: 'Made here, edited' },
      });
      assert.equal(edited.statusCode, 200);
      await h.idle();
      const patch = emulator.requests().find((r) => r.method === 'PATCH');
      assert.ok(patch, 'patched at the provider');
      assert.equal(patch.ifMatch, local.external?.etag);
      assert.ok(emulatorEvents().some((e) => titleOf(e) === 'Made here, edited'));
      // Its own change comes back on the next sync without changing anything.
      const beforeSync = await localEvents(h, localCalendarId);
      await force(h, user);
      assert.deepEqual(await localEvents(h, localCalendarId), beforeSync);

      // Conflict: the provider changes the event, then a local edit goes out with the old ETag.
      local = (await localEvents(h, localCalendarId)).find((e) => e.id === local.id)!;
      if (isA) h.a.updateEvent('alice@a.test', cal, remote.id, { summary: 'Changed at the provider' });
      else h.b.updateEvent('alice@b.test', cal, remote.id, { subject: 'Changed at the provider' });
      const conflicting = await h.app.inject({
        method: 'PATCH',
        url: `/api/events/${local.id}`,
        headers: user.auth,
        payload: { title: 'Changed here too' },
      });
      assert.equal(conflicting.statusCode, 200);
      await h.idle();
      assert.ok(
        emulator.requests().some((r) => r.method === 'PATCH' && r.status === 412),
        'the provider answered 412',
      );
      const resolved = (await localEvents(h, localCalendarId)).find((e) => e.id === local.id)!;
      assert.equal(resolved.title, 'Changed at the provider', 'provider wins');
      assert.ok(emulatorEvents().some((e) => titleOf(e) === 'Changed at the provider'));
      const conflicts = await h.app.services.calendarSync.listConflicts({ userId: user.id, via: 'jwt' });
      assert.deepEqual(
        conflicts.map((c) => [c.externalId, c.localChange, c.resolution]),
        [[remote.id, 'update', 'provider_wins']],
      );

      // A local delete is pushed.
      const removed = await h.app.inject({
        method: 'DELETE',
        url: `/api/events/${local.id}`,
        headers: user.auth,
      });
      assert.equal(removed.statusCode, 204);
      await h.idle();
      assert.ok(!emulatorEvents().some((e) => e.id === remote.id), 'deleted at the provider');
    });
  }

  test('one-way mappings never write to the provider', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = calendarA();
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_a', cal, {
      bidirectionalSync: false,
    });
    h.a.clearRequests();
    const created = await h.app.inject({
      method: 'POST',
      url: `/api/calendars/${localCalendarId}/events`,
      headers: user.auth,
      payload: { title: 'Local only', startTime: '2030-09-01T09:00:00Z', endTime: '2030-09-01T10:00:00Z' },
    });
    assert.equal(created.statusCode, 201);
    await h.idle();
    assert.ok(!h.a.requests().some((r) => r.method !== 'GET' && r.path.includes('/events')));
    assert.equal(h.a.listEvents('alice@a.test', cal).length, 0);
  });

  test('automation: the selected event.synced rules run for events a sync actually changed', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const rule = async (name: string, trigger: string) => {
      const r = await h.app.inject({
        method: 'POST',
        url: '/api/automation/rules',
        headers: user.auth,
        payload: { name, trigger, actions: [{ type: 'tag_event', label: name }] },
      });
      assert.equal(r.statusCode, 201, r.body);
      return r.json().id as number;
    };
    const selected = await rule('selected', 'event.synced');
    await rule('other', 'event.synced');
    const cal = calendarA();
    const event = h.a.createEvent(
      'alice@a.test',
      cal,
      timedA('Tagged', '2030-10-01T09:00:00Z', '2030-10-01T10:00:00Z'),
    );
    const { localCalendarId } = await mapCalendar(h, user, 'calendar_provider_a', cal, {
      triggerAutomationRules: true,
      selectedRuleIds: [selected],
      bidirectionalSync: false,
    });
    const tags = async (eventId: number) =>
      (
        await h.app.inject({
          method: 'GET',
          url: `/api/automation/events/${eventId}/tags`,
          headers: user.auth,
        })
      )
        .json()
        .map((t: { label: string }) => t.label);
    const auditCount = async () =>
      (
        await h.app.inject({ method: 'GET', url: '/api/automation/audit?limit=200', headers: user.auth })
      ).json().items.length;
    const local = (await localEvents(h, localCalendarId))[0]!;
    assert.deepEqual(await tags(local.id), ['selected']);
    assert.equal(await auditCount(), 1);
    // Nothing changed at the provider: no rule runs.
    await force(h, user);
    assert.equal(await auditCount(), 1);
    // A change runs the selected rule again.
    h.a.updateEvent('alice@a.test', cal, event.id, { summary: 'Tagged, changed' });
    await force(h, user);
    assert.equal(await auditCount(), 2);

    // A rule with another trigger cannot be selected.
    const wrong = await rule('created', 'event.created');
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/sync',
      headers: user.auth,
      payload: {
        provider: 'calendar_provider_a',
        calendars: [
          { externalId: cal, localName: 'x', triggerAutomationRules: true, selectedRuleIds: [wrong] },
        ],
      },
    });
    assert.equal(r.statusCode, 400);
  });
});
