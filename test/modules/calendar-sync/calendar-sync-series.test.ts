import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { personActor } from '../../../src/lib/actor.js';
import { createSyncEngine } from '../../../src/modules/calendar-sync/engine.js';
import { toPatternedRecurrence } from '../../../src/modules/calendar-sync/providers/graph-recurrence.js';
import type {
  CalendarProviderPort,
  ChangePage,
  ExternalEvent,
} from '../../../src/modules/calendar-sync/providers/port.js';
import { createSyncRepo } from '../../../src/modules/calendar-sync/repo.js';
import { createTokenKeeper, sealTokens } from '../../../src/modules/calendar-sync/tokens.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';

/**
 * Recurring-series exceptions as Google sends them (moved and cancelled occurrences with
 * recurringEventId and originalStartTime). The provider A emulator does not produce them, so
 * this drives the engine with a scripted port.
 */
function scriptedPort(): CalendarProviderPort & { pages: ExternalEvent[][]; full: ExternalEvent[] } {
  const port = {
    id: 'calendar_provider_a' as const,
    windowed: false,
    maxChannelTtlSeconds: 3600,
    clientChannelIds: true,
    pages: [] as ExternalEvent[][],
    full: [] as ExternalEvent[],
    authorizationUrl: () => 'http://provider.test/auth',
    exchangeCode: async () => ({ accessToken: 'a', refreshToken: 'r', expiresAt: null, scope: null }),
    refresh: async () => ({ accessToken: 'a', refreshToken: null, expiresAt: null, scope: null }),
    listCalendars: async () => [],
    async listChanges(
      _token: string,
      input: { syncToken: string | null; onPage(page: ChangePage): Promise<void> },
    ) {
      const events = input.syncToken ? (port.pages.shift() ?? []) : port.full;
      await input.onPage({ events, timezone: 'Europe/Berlin' });
      return `token-${Date.now()}-${Math.random()}`;
    },
    getEvent: async () => null,
    createEvent: async () => {
      throw new Error('not used');
    },
    updateEvent: async () => {
      throw new Error('not used');
    },
    deleteEvent: async () => {},
    watch: async () => ({ channelId: 'c', resourceId: null, expiresAt: new Date().toISOString() }),
    renewWatch: async () => null,
    stopWatch: async () => {},
  };
  return port;
}

const base: Omit<ExternalEvent, 'externalId' | 'title' | 'start' | 'end'> = {
  etag: '"1"',
  cancelled: false,
  seriesId: null,
  originalStart: null,
  seriesMasterId: null,
  description: null,
  location: null,
  allDay: false,
  timezone: 'Europe/Berlin',
  recurrence: null,
  reminders: null,
};

describe('calendar sync: recurring series with moved and cancelled occurrences', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('exceptions become EXDATEs of the series (kept across series changes); a moved one is an event of its own', async () => {
    const user = await registerUser(t.app);
    const actor = personActor(user.id);
    const calendar = await t.app.services.calendars.create(actor, {
      name: 'Series',
      timezone: 'Europe/Berlin',
    });
    const repo = createSyncRepo(t.db.kysely);
    const key = t.app.config.encryptionKey;
    await repo.upsertConnection(
      user.id,
      'calendar_provider_a',
      sealTokens(key, user.id, 'calendar_provider_a', {
        accessToken: 'access',
        refreshToken: 'refresh',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        scope: null,
      }),
      [],
      new Date().toISOString(),
    );
    const mapping = await repo.insertMapping(
      user.id,
      'calendar_provider_a',
      'primary',
      calendar.id,
      {
        localName: 'Series',
        bidirectionalSync: false,
        importReminders: false,
        triggerAutomationRules: false,
        selectedRuleIds: null,
      },
      new Date().toISOString(),
    );
    const port = scriptedPort();
    const providers = { calendar_provider_a: port, calendar_provider_b: undefined };
    const engine = createSyncEngine({
      db: t.db,
      repo,
      events: t.app.services.events,
      calendars: t.app.services.calendars,
      providers,
      tokens: createTokenKeeper({ db: t.db, key, repo, providers, outbox: t.app.services.outbox }),
      log: { warn: () => {}, info: () => {} },
      webhookUrl: () => 'http://service.test/hook',
    });
    const rows = async () =>
      (
        await t.db.kysely
          .selectFrom('events')
          .selectAll()
          .where('calendarId', '=', calendar.id)
          .orderBy('startTime')
          .execute()
      ).map((row) => ({
        id: row.id,
        externalId: row.externalId,
        title: row.title,
        startTime: row.startTime,
        recurrence: row.recurrence ? (JSON.parse(row.recurrence) as string[]) : null,
      }));
    const occurrences = async () =>
      (
        await t.app.services.events.listOccurrences(actor, calendar.id, {
          from: '2030-06-01T00:00:00Z',
          to: '2030-08-01T00:00:00Z',
        })
      ).map((o) => `${o.title}@${o.startTime}`);

    const series: ExternalEvent = {
      ...base,
      externalId: 'weekly',
      title: 'Weekly',
      start: { instant: '2030-06-03T07:00:00.000Z' },
      end: { instant: '2030-06-03T08:00:00.000Z' },
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5'],
    };
    const moved: ExternalEvent = {
      ...base,
      externalId: 'weekly_20300610T070000Z',
      seriesId: 'weekly',
      originalStart: { instant: '2030-06-10T07:00:00.000Z' },
      title: 'Weekly, moved',
      start: { instant: '2030-06-10T12:00:00.000Z' },
      end: { instant: '2030-06-10T13:00:00.000Z' },
    };
    const cancelled: ExternalEvent = {
      ...base,
      externalId: 'weekly_20300617T070000Z',
      seriesId: 'weekly',
      originalStart: { instant: '2030-06-17T07:00:00.000Z' },
      cancelled: true,
      title: '',
      start: { instant: '1970-01-01T00:00:00.000Z' },
      end: { instant: '1970-01-01T00:00:00.000Z' },
    };
    // Full listing: the exceptions may come before their series.
    port.full = [moved, cancelled, series];
    await engine.sync(mapping.id);
    assert.deepEqual(await occurrences(), [
      'Weekly@2030-06-03T07:00:00.000Z',
      'Weekly, moved@2030-06-10T12:00:00.000Z',
      'Weekly@2030-06-24T07:00:00.000Z',
      'Weekly@2030-07-01T07:00:00.000Z',
    ]);
    const master = (await rows()).find((row) => row.externalId === 'weekly')!;
    assert.deepEqual(master.recurrence, [
      'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5',
      'EXDATE;X-SYNC-EXCEPTION=TRUE:20300610T070000Z,20300617T070000Z',
    ]);

    // The series changes (new title, same rule): its exceptions stay.
    port.pages.push([{ ...series, etag: '"2"', title: 'Weekly sync' }]);
    await engine.sync(mapping.id);
    assert.deepEqual(await occurrences(), [
      'Weekly sync@2030-06-03T07:00:00.000Z',
      'Weekly, moved@2030-06-10T12:00:00.000Z',
      'Weekly sync@2030-06-24T07:00:00.000Z',
      'Weekly sync@2030-07-01T07:00:00.000Z',
    ]);

    // Another occurrence is cancelled on its own: the unchanged series gets one more EXDATE.
    port.pages.push([
      {
        ...cancelled,
        externalId: 'weekly_20300624T070000Z',
        originalStart: { instant: '2030-06-24T07:00:00.000Z' },
      },
    ]);
    await engine.sync(mapping.id);
    assert.deepEqual(await occurrences(), [
      'Weekly sync@2030-06-03T07:00:00.000Z',
      'Weekly, moved@2030-06-10T12:00:00.000Z',
      'Weekly sync@2030-07-01T07:00:00.000Z',
    ]);

    // The moved occurrence is cancelled later: its own event goes, the exclusion stays.
    port.pages.push([{ ...moved, etag: '"3"', cancelled: true }]);
    await engine.sync(mapping.id);
    assert.deepEqual(await occurrences(), [
      'Weekly sync@2030-06-03T07:00:00.000Z',
      'Weekly sync@2030-07-01T07:00:00.000Z',
    ]);

    // A full resync rebuilds the same state, without duplicates.
    port.full = [
      { ...series, etag: '"2"', title: 'Weekly sync' },
      { ...moved, etag: '"3"', cancelled: true },
      cancelled,
      {
        ...cancelled,
        externalId: 'weekly_20300624T070000Z',
        originalStart: { instant: '2030-06-24T07:00:00.000Z' },
      },
    ];
    await repo.setSyncResult(mapping.id, {
      syncToken: '',
      syncWindowEnd: null,
      lastSyncedAt: new Date().toISOString(),
    });
    await t.db.kysely
      .updateTable('calendarSyncMappings')
      .set({ syncToken: null })
      .where('id', '=', mapping.id)
      .execute();
    await engine.sync(mapping.id);
    assert.deepEqual(await occurrences(), [
      'Weekly sync@2030-06-03T07:00:00.000Z',
      'Weekly sync@2030-07-01T07:00:00.000Z',
    ]);
    assert.equal((await rows()).length, 1);

    // Deleting the series takes everything of it.
    port.pages.push([{ ...series, cancelled: true }]);
    await engine.sync(mapping.id);
    assert.deepEqual(await rows(), []);
    const left = await t.db.kysely
      .selectFrom('calendarSyncExceptions')
      .selectAll()
      .where('mappingId', '=', mapping.id)
      .execute();
    assert.deepEqual(left, []);
  });

  test('all-day series exclude dates; unsupported rules keep the first occurrence', async () => {
    const user = await registerUser(t.app);
    const actor = personActor(user.id);
    const calendar = await t.app.services.calendars.create(actor, { name: 'Days', timezone: 'UTC' });
    const repo = createSyncRepo(t.db.kysely);
    const key = t.app.config.encryptionKey;
    await repo.upsertConnection(
      user.id,
      'calendar_provider_a',
      sealTokens(key, user.id, 'calendar_provider_a', {
        accessToken: 'x',
        refreshToken: null,
        expiresAt: null,
        scope: null,
      }),
      [],
      new Date().toISOString(),
    );
    const mapping = await repo.insertMapping(
      user.id,
      'calendar_provider_a',
      'days',
      calendar.id,
      {
        localName: 'Days',
        bidirectionalSync: false,
        importReminders: false,
        triggerAutomationRules: false,
        selectedRuleIds: null,
      },
      new Date().toISOString(),
    );
    const port = scriptedPort();
    const providers = { calendar_provider_a: port, calendar_provider_b: undefined };
    const engine = createSyncEngine({
      db: t.db,
      repo,
      events: t.app.services.events,
      calendars: t.app.services.calendars,
      providers,
      tokens: createTokenKeeper({ db: t.db, key, repo, providers, outbox: t.app.services.outbox }),
      log: { warn: () => {}, info: () => {} },
      webhookUrl: () => 'http://service.test/hook',
    });
    port.full = [
      {
        ...base,
        externalId: 'daily',
        title: 'Daily',
        allDay: true,
        timezone: null,
        start: { date: '2030-06-01' },
        end: { date: '2030-06-02' },
        recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
      },
      {
        ...base,
        externalId: 'daily_20300602',
        seriesId: 'daily',
        originalStart: { date: '2030-06-02' },
        cancelled: true,
        title: '',
        start: { date: '2030-06-02' },
        end: { date: '2030-06-03' },
      },
      {
        ...base,
        externalId: 'hourly',
        title: 'Hourly',
        start: { instant: '2030-06-05T09:00:00.000Z' },
        end: { instant: '2030-06-05T09:30:00.000Z' },
        recurrence: ['RRULE:FREQ=HOURLY;COUNT=3'],
      },
    ];
    const outcome = await engine.sync(mapping.id);
    assert.equal(outcome?.result.inserted, 2);
    const listed = await t.app.services.events.listOccurrences(actor, calendar.id, {
      from: '2030-06-01T00:00:00Z',
      to: '2030-06-10T00:00:00Z',
    });
    assert.deepEqual(
      listed.map((o) => `${o.title}@${o.startTime}@${o.allDay}`),
      [
        // All-day in the provider calendar's zone (the listing says Europe/Berlin).
        'Daily@2030-05-31T22:00:00.000Z@true',
        'Daily@2030-06-02T22:00:00.000Z@true',
        'Hourly@2030-06-05T09:00:00.000Z@false',
      ],
    );
  });
});

describe('local rules to Graph patternedRecurrence', () => {
  const start = DateTime.fromISO('2030-06-03T09:00:00', { zone: 'Europe/Berlin' });
  test('the common patterns convert; others answer null', () => {
    assert.deepEqual(toPatternedRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4'], start), {
      pattern: { type: 'weekly', interval: 1, daysOfWeek: ['monday', 'wednesday'], firstDayOfWeek: 'monday' },
      range: {
        type: 'numbered',
        startDate: '2030-06-03',
        numberOfOccurrences: 4,
        recurrenceTimeZone: 'Europe/Berlin',
      },
    });
    assert.deepEqual(
      toPatternedRecurrence(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20301231T000000Z'], start)?.pattern,
      {
        type: 'relativeMonthly',
        interval: 1,
        daysOfWeek: ['friday'],
        index: 'last',
      },
    );
    assert.deepEqual(toPatternedRecurrence(['RRULE:FREQ=DAILY;INTERVAL=2'], start), {
      pattern: { type: 'daily', interval: 2 },
      range: { type: 'noEnd', startDate: '2030-06-03', recurrenceTimeZone: 'Europe/Berlin' },
    });
    assert.deepEqual(toPatternedRecurrence(['RRULE:FREQ=YEARLY'], start)?.pattern, {
      type: 'absoluteYearly',
      interval: 1,
      month: 6,
      dayOfMonth: 3,
    });
    assert.equal(toPatternedRecurrence(['RRULE:FREQ=DAILY', 'EXDATE:20300604T070000Z'], start), null);
    assert.equal(toPatternedRecurrence(['RRULE:FREQ=MONTHLY;BYMONTHDAY=1,15'], start), null);
    assert.equal(toPatternedRecurrence(['RRULE:FREQ=DAILY;BYHOUR=9'], start), null);
  });
});
