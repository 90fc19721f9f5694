import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { type Db, inTransaction } from '../../db/database.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import type { Event, EventValues, Reminder, SyncedEventRow } from '../events/schemas.js';
import { checkEvent, type EventFields, type EventService } from '../events/service.js';
import type { ProviderRegistry } from './providers/index.js';
import {
  type CalendarProviderPort,
  type EventWrite,
  type ExternalEvent,
  type ExternalTime,
  NotFoundAtProviderError,
  PreconditionFailedError,
  type SyncProvider,
  SyncTokenExpiredError,
} from './providers/port.js';
import { graphCanHold } from './providers/provider-b.js';
import { type ConnectionRow, createSyncRepo, type Mapping, type SyncRepo } from './repo.js';
import type { TokenKeeper } from './tokens.js';

/** How long one sync or push-back may hold a calendar before another instance may take over. */
const LEASE_MS = 10 * 60_000;
/** B's calendarView window: this far back and ahead of the day of a full listing. */
const WINDOW_PAST_DAYS = 90;
const WINDOW_AHEAD_DAYS = 540;
/** A full listing of B re-bases the window once less than this much of its future is left. */
const WINDOW_REBASE_DAYS = 480;
/** Channels are renewed once they have less than this left. */
export const CHANNEL_RENEW_MARGIN_MS = 24 * 3_600_000;
/** Our EXDATE lines carry this x-param (RFC 5545 allows them), so they can be rebuilt and are never pushed. */
const OWN_EXDATE = 'X-SYNC-EXCEPTION=TRUE';
const EXDATES_PER_LINE = 50;
const DAY_MS = 86_400_000;

/** Another instance holds the calendar's lease; the job is retried later. */
export class LeaseBusyError extends Error {}

export interface SyncLogger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

export interface SyncCounts {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
  skipped: number;
}

export interface SyncResult extends SyncCounts {
  full: boolean;
  /** Local events the sync created or whose content it changed (automation runs on these). */
  changed: number[];
}

interface Context {
  mapping: Mapping;
  connection: ConnectionRow;
  port: CalendarProviderPort;
  calendarTz: string;
}

export interface PushJob {
  mappingId: number;
  type: 'created' | 'updated' | 'deleted';
  eventId: number;
  /** For a delete: the provider id and etag the event had. */
  externalId?: string | null;
  etag?: string | null;
}

// Checking a zone builds an Intl formatter; a sync asks about the same few zones thousands of times.
const zoneChecks = new Map<string, boolean>();
function validZone(zone: string | null | undefined): string | undefined {
  if (!zone) return undefined;
  let valid = zoneChecks.get(zone);
  if (valid === undefined) {
    valid = isValidTimeZone(zone);
    if (zoneChecks.size < 1000) zoneChecks.set(zone, valid);
  }
  return valid ? zone : undefined;
}
const isRuleLine = (line: string) => /^(RRULE|EXDATE|RDATE)[:;]/i.test(line);
const isOwnExdate = (line: string) => line.toUpperCase().startsWith('EXDATE;') && line.includes(OWN_EXDATE);

/** RFC 5545 value of an occurrence's original start: `YYYYMMDD` or `YYYYMMDDTHHMMSSZ`. */
function exdateValue(time: ExternalTime): string {
  if ('date' in time) return time.date.replaceAll('-', '');
  return new Date(time.instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function exdateLines(values: readonly string[]): string[] {
  const dates = [...new Set(values.filter((v) => v.length === 8))].sort();
  const times = [...new Set(values.filter((v) => v.length !== 8))].sort();
  const lines: string[] = [];
  for (let i = 0; i < dates.length; i += EXDATES_PER_LINE)
    lines.push(`EXDATE;VALUE=DATE;${OWN_EXDATE}:${dates.slice(i, i + EXDATES_PER_LINE).join(',')}`);
  for (let i = 0; i < times.length; i += EXDATES_PER_LINE)
    lines.push(`EXDATE;${OWN_EXDATE}:${times.slice(i, i + EXDATES_PER_LINE).join(',')}`);
  return lines;
}

function toInstant(time: ExternalTime, zone: string): string {
  if ('date' in time) return DateTime.fromISO(time.date, { zone }).toUTC().toISO()!;
  return time.instant;
}

const recurrenceColumn = (lines: readonly string[] | null) =>
  lines && lines.length > 0 ? JSON.stringify(lines) : null;

function sameContent(row: SyncedEventRow, values: EventValues, withReminders: boolean): boolean {
  return (
    row.title === values.title &&
    row.description === values.description &&
    row.location === values.location &&
    row.startTime === values.startTime &&
    row.endTime === values.endTime &&
    row.allDay === values.allDay &&
    row.timezone === values.timezone &&
    (row.recurrence ?? null) === recurrenceColumn(values.recurrence) &&
    (!withReminders || row.reminders === JSON.stringify(values.reminders))
  );
}

function group<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list) list.push(row);
    else map.set(k, [row]);
  }
  return map;
}

/** The local event as the provider should see it; our own EXDATE lines stay here. */
function toWrite(event: Event, withReminders: boolean): EventWrite {
  const recurrence = event.recurrence.filter((line) => !isOwnExdate(line));
  return {
    title: event.title,
    description: event.description,
    location: event.location,
    allDay: event.allDay,
    startTime: event.startTime,
    endTime: event.endTime,
    timezone: event.timezone,
    recurrence: recurrence.length > 0 ? recurrence : null,
    ...(withReminders ? { reminders: event.reminders } : {}),
  };
}

type SyncedEvents = ReturnType<EventService['mirrored']>;

export interface EngineDeps {
  db: Db;
  repo: SyncRepo;
  /** The events module, which writes the events a mapped calendar mirrors. */
  events: Pick<EventService, 'mirrored'>;
  providers: ProviderRegistry;
  tokens: TokenKeeper;
  log: SyncLogger;
  /** Public URL of a provider's webhook route. */
  webhookUrl(provider: SyncProvider): string;
}

/**
 * The sync engine, per mapped calendar:
 * - pull: a full listing (no cursor, or after 410) or an incremental one from the stored
 *   cursor, applied page by page in one transaction per page with batched reads and
 *   multi-row inserts; a full listing then deletes local copies the provider no longer has
 *   (mark and sweep), so a resync neither duplicates nor loses events;
 * - push-back of local changes with the stored ETag; a 412 re-reads and keeps the provider's
 *   version ("provider wins", recorded);
 * - push channels (open, renew, stop).
 * All work on one calendar holds its lease: one at a time across instances.
 */
export function createSyncEngine(deps: EngineDeps) {
  const { db, repo, providers, tokens, log } = deps;
  // `events` names the provider's listings below.
  const calendarEvents = deps.events;
  const chains = new Map<number, Promise<void>>();

  async function withLease<T>(mappingId: number, work: () => Promise<T>): Promise<T> {
    // In this process, work on one calendar queues; across instances the database lease decides.
    const previous = chains.get(mappingId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    chains.set(mappingId, tail);
    await previous;
    try {
      const owner = randomUUID();
      const now = Date.now();
      const taken = await repo.acquireLease(
        mappingId,
        owner,
        new Date(now + LEASE_MS).toISOString(),
        new Date(now).toISOString(),
      );
      if (!taken) throw new LeaseBusyError(`calendar mapping ${mappingId} is busy on another instance`);
      try {
        return await work();
      } finally {
        await repo.releaseLease(mappingId, owner);
      }
    } finally {
      release();
      if (chains.get(mappingId) === tail) chains.delete(mappingId);
    }
  }

  /** The mapping with its connection and provider when all are usable; undefined otherwise. */
  async function contextOf(mappingId: number): Promise<Context | undefined> {
    const mapping = await repo.findMapping(mappingId);
    if (mapping?.state !== 'active') return undefined;
    const connection = await repo.findConnection(mapping.userId, mapping.provider);
    if (connection?.state !== 'connected') return undefined;
    const port = providers[mapping.provider];
    if (!port) return undefined;
    const calendarTz = (await repo.calendarTimezone(mapping.localCalendarId)) ?? 'UTC';
    return { mapping, connection, port, calendarTz };
  }

  /** Local event values of an external event, or null when it cannot be stored. */
  function localValues(
    ctx: Context,
    event: ExternalEvent,
    zone: string,
    exdates: readonly string[],
  ): EventValues | null {
    const timezone = validZone(event.timezone) ?? zone;
    let startTime = toInstant(event.start, timezone);
    let endTime = toInstant(event.end, timezone);
    if (Date.parse(endTime) <= Date.parse(startTime)) {
      // Providers allow zero-length events; locally an event ends after it starts.
      endTime = event.allDay
        ? DateTime.fromISO(startTime, { zone: timezone }).plus({ days: 1 }).toUTC().toISO()!
        : new Date(Date.parse(startTime) + 60_000).toISOString();
    }
    if (event.allDay && 'instant' in event.start)
      startTime = DateTime.fromISO(startTime, { zone: timezone }).startOf('day').toUTC().toISO()!;
    const recurrence = event.recurrence
      ? [...event.recurrence.filter(isRuleLine), ...exdateLines(exdates)]
      : null;
    const fields: EventFields = {
      title: event.title.trim().slice(0, 500) || '(No title)',
      description: event.description ? event.description.slice(0, 10_000) : null,
      location: event.location ? event.location.trim().slice(0, 1000) || null : null,
      startTime,
      endTime,
      allDay: event.allDay,
      timezone,
      recurrence,
      reminders: ctx.mapping.importReminders ? (event.reminders ?? []) : [],
    };
    try {
      return checkEvent(ctx.mapping.localCalendarId, fields);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
    if (recurrence) {
      // A rule this service cannot expand (e.g. hourly): keep the first occurrence rather than nothing.
      try {
        return checkEvent(ctx.mapping.localCalendarId, { ...fields, recurrence: null });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return null;
  }

  interface Seen {
    events: Set<string>;
    instances: Set<string>;
  }

  /**
   * Applies one page of provider changes in one transaction: exceptions of series first, then
   * deletions, then upserts (one read for the page's existing rows, multi-row inserts, updates
   * only where the ETag and the content differ), then series whose exceptions changed.
   */
  async function applyEvents(
    ctx: Context,
    events: readonly ExternalEvent[],
    pageZone: string | null,
    seen: Seen | undefined,
    force = false,
  ): Promise<SyncResult> {
    const { mapping } = ctx;
    const provider = mapping.provider;
    const calendarId = mapping.localCalendarId;
    const zone = validZone(pageZone) ?? ctx.calendarTz;
    const now = nowIso();
    const result: SyncResult = {
      full: false,
      inserted: 0,
      updated: 0,
      deleted: 0,
      unchanged: 0,
      skipped: 0,
      changed: [],
    };

    return inTransaction(db.kysely, async (trx) => {
      const r = createSyncRepo(trx);
      const mirrored = calendarEvents.mirrored(trx);
      // B: occurrences of a series that was created here (pushed as a series) belong to that series.
      const masterIds = [
        ...new Set(events.flatMap((event) => (event.seriesMasterId ? [event.seriesMasterId] : []))),
      ];
      const localSeries = new Set(
        masterIds.length > 0
          ? (await mirrored.findByExternalIds(calendarId, provider, masterIds)).map((row) => row.externalId)
          : [],
      );

      const removals: string[] = [];
      const upserts: ExternalEvent[] = [];
      const dirtySeries = new Set<string>();
      for (const event of events) {
        if (event.seriesMasterId && localSeries.has(event.seriesMasterId)) {
          seen?.events.add(event.seriesMasterId);
          continue;
        }
        if (event.seriesId && event.originalStart) {
          // A: a moved, changed or cancelled occurrence. The series excludes its original start;
          // a changed one lives on as an event of its own.
          await r.upsertException(
            mapping.id,
            event.seriesId,
            event.externalId,
            exdateValue(event.originalStart),
            now,
          );
          seen?.instances.add(event.externalId);
          dirtySeries.add(event.seriesId);
          if (event.cancelled) removals.push(event.externalId);
          else {
            seen?.events.add(event.externalId);
            upserts.push({ ...event, recurrence: null });
          }
          continue;
        }
        if (event.cancelled) removals.push(event.externalId);
        else {
          seen?.events.add(event.externalId);
          upserts.push(event);
        }
      }

      if (removals.length > 0) {
        const found = await mirrored.findByExternalIds(calendarId, provider, removals);
        // A deleted series takes its changed occurrences with it.
        const series = found.filter((row) => row.recurrence !== null).map((row) => row.externalId);
        const instances = series.length > 0 ? await r.deleteExceptionsOfSeries(mapping.id, series) : [];
        const instanceRows =
          instances.length > 0 ? await mirrored.findByExternalIds(calendarId, provider, instances) : [];
        const ids = [...new Set([...found, ...instanceRows].map((row) => row.id))];
        await mirrored.deleteMany(ids);
        result.deleted += ids.length;
      }

      if (upserts.length > 0) {
        const existing = new Map(
          (
            await mirrored.findByExternalIds(
              calendarId,
              provider,
              upserts.map((event) => event.externalId),
            )
          ).map((row) => [row.externalId, row]),
        );
        const ruled = upserts.filter((event) => event.recurrence).map((event) => event.externalId);
        const exdates = group(
          ruled.length > 0 ? await r.listExceptions(mapping.id, ruled) : [],
          (row) => row.seriesExternalId,
        );
        const inserts: Parameters<SyncedEvents['insertMany']>[0] = [];
        for (const event of upserts) {
          const row = existing.get(event.externalId);
          if (row && !force && event.etag !== null && row.externalEtag === event.etag) {
            result.unchanged += 1;
            continue;
          }
          const values = localValues(
            ctx,
            event,
            zone,
            (exdates.get(event.externalId) ?? []).map((exception) => exception.exdate),
          );
          if (!values) {
            result.skipped += 1;
            continue;
          }
          dirtySeries.delete(event.externalId);
          const external = {
            externalProvider: provider,
            externalId: event.externalId,
            externalEtag: event.etag,
            externalLastSyncedAt: now,
          };
          if (!row) {
            inserts.push({ values, external });
            continue;
          }
          if (sameContent(row, values, mapping.importReminders)) {
            await mirrored.setExternal(row.id, external);
            result.unchanged += 1;
            continue;
          }
          const { calendarId: _calendarId, reminders, ...rest } = values;
          // Without importReminders the local reminders are the user's: never overwritten.
          await mirrored.update(
            row.id,
            mapping.importReminders ? { ...rest, reminders } : rest,
            external,
            now,
          );
          result.updated += 1;
          result.changed.push(row.id);
        }
        const ids = await mirrored.insertMany(inserts, now);
        result.inserted += ids.length;
        result.changed.push(...ids);
      }

      if (dirtySeries.size > 0) await refreshSeriesExdates(r, mirrored, ctx, [...dirtySeries], now);
      return result;
    });
  }

  /** Rebuilds our EXDATE lines of series whose exceptions changed while the series itself did not. */
  async function refreshSeriesExdates(
    r: SyncRepo,
    mirrored: SyncedEvents,
    ctx: Context,
    seriesIds: string[],
    now: string,
  ) {
    const { mapping } = ctx;
    const masters = (
      await mirrored.findByExternalIds(mapping.localCalendarId, mapping.provider, seriesIds)
    ).filter((row) => row.recurrence !== null);
    if (masters.length === 0) return;
    const exceptions = group(
      await r.listExceptions(
        mapping.id,
        masters.map((row) => row.externalId),
      ),
      (row) => row.seriesExternalId,
    );
    for (const master of masters) {
      const lines = JSON.parse(master.recurrence!) as string[];
      const next = [
        ...lines.filter((line) => !isOwnExdate(line)),
        ...exdateLines((exceptions.get(master.externalId) ?? []).map((row) => row.exdate)),
      ];
      if (JSON.stringify(next) === JSON.stringify(lines)) continue;
      try {
        const values = checkEvent(mapping.localCalendarId, {
          ...master,
          recurrence: next,
          reminders: JSON.parse(master.reminders) as Reminder[],
        });
        await mirrored.setRecurrence(master.id, values.recurrence, values.occursUntil, now);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        log.warn({ mappingId: mapping.id }, 'calendar sync: a series exception could not be applied');
      }
    }
  }

  function windowFromNow(): { start: string; end: string } {
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    return {
      start: new Date(today - WINDOW_PAST_DAYS * DAY_MS).toISOString(),
      end: new Date(today + WINDOW_AHEAD_DAYS * DAY_MS).toISOString(),
    };
  }

  async function pull(
    ctx: Context,
    full: boolean,
  ): Promise<{ result: SyncResult; syncToken: string; windowEnd: string | null }> {
    const { mapping, port } = ctx;
    const window = port.windowed && full ? windowFromNow() : undefined;
    const seen: Seen | undefined = full ? { events: new Set(), instances: new Set() } : undefined;
    const result: SyncResult = {
      full,
      inserted: 0,
      updated: 0,
      deleted: 0,
      unchanged: 0,
      skipped: 0,
      changed: [],
    };
    const syncToken = await tokens.withAccess(ctx.connection, (access) =>
      port.listChanges(access, {
        calendarId: mapping.externalCalendarId,
        syncToken: full ? null : mapping.syncToken,
        ...(window ? { window } : {}),
        onPage: async (page) => {
          const applied = await applyEvents(ctx, page.events, page.timezone, seen);
          result.inserted += applied.inserted;
          result.updated += applied.updated;
          result.deleted += applied.deleted;
          result.unchanged += applied.unchanged;
          result.skipped += applied.skipped;
          result.changed.push(...applied.changed);
        },
      }),
    );
    if (seen) {
      // Mark and sweep: what the provider no longer lists is gone (for B only within the window).
      const local = await calendarEvents
        .mirrored()
        .listFromProvider(mapping.localCalendarId, mapping.provider);
      const gone = local
        .filter(
          (row) =>
            !seen.events.has(row.externalId) &&
            (!window || (row.startTime >= window.start && row.startTime < window.end)),
        )
        .map((row) => row.id);
      await inTransaction(db.kysely, async (trx) => {
        await calendarEvents.mirrored(trx).deleteMany(gone);
        await createSyncRepo(trx).sweepExceptions(mapping.id, seen.instances);
      });
      result.deleted += gone.length;
    }
    return { result, syncToken, windowEnd: window?.end ?? mapping.syncWindowEnd };
  }

  async function pushWrite(ctx: Context, eventId: number): Promise<void> {
    const { mapping, port, connection } = ctx;
    const mirrored = calendarEvents.mirrored();
    const event = await mirrored.findById(eventId);
    if (!event || event.calendarId !== mapping.localCalendarId) return;
    const { external } = event;
    if (external && external.provider !== mapping.provider) return;
    // Nothing local is newer than what the provider has (a sync wrote it, or an earlier push).
    if (external?.lastSyncedAt && event.updatedAt <= external.lastSyncedAt) return;
    const write = toWrite(event, mapping.importReminders);
    const externalOf = (created: ExternalEvent) => ({
      externalProvider: mapping.provider,
      externalId: created.externalId,
      externalEtag: created.etag,
      externalLastSyncedAt: nowIso(),
    });
    if (!external) {
      if (port.id === 'calendar_provider_b' && !graphCanHold(write)) {
        await repo.setError(
          connection.id,
          {
            code: 'PUSH_UNSUPPORTED',
            message: `Event ${event.id}: its recurrence cannot be expressed at the provider`,
          },
          nowIso(),
        );
        return;
      }
      const created = await tokens.withAccess(connection, (access) =>
        port.createEvent(access, mapping.externalCalendarId, write),
      );
      await mirrored.setExternal(event.id, externalOf(created));
      return;
    }
    const { externalId } = external;
    try {
      const updated = await tokens.withAccess(connection, (access) =>
        port.updateEvent(access, mapping.externalCalendarId, externalId, write, external.etag),
      );
      await mirrored.setExternal(event.id, externalOf(updated));
    } catch (error) {
      if (error instanceof PreconditionFailedError || error instanceof NotFoundAtProviderError) {
        await providerWins(ctx, event.id, externalId, 'update');
        return;
      }
      throw error;
    }
  }

  async function pushDelete(ctx: Context, job: PushJob): Promise<void> {
    const { mapping, port, connection } = ctx;
    const externalId = job.externalId;
    if (!externalId) return;
    try {
      await tokens.withAccess(connection, (access) =>
        port.deleteEvent(access, mapping.externalCalendarId, externalId, job.etag ?? null),
      );
    } catch (error) {
      if (error instanceof PreconditionFailedError) {
        await providerWins(ctx, null, externalId, 'delete');
        return;
      }
      throw error;
    }
  }

  /**
   * The provider changed the event since our last sync and refused our change (412), or it is
   * gone there: the provider's version is applied locally and the choice recorded.
   */
  async function providerWins(
    ctx: Context,
    eventId: number | null,
    externalId: string,
    localChange: 'update' | 'delete',
  ) {
    const { mapping, port, connection } = ctx;
    const fresh = await tokens.withAccess(connection, (access) =>
      port.getEvent(access, mapping.externalCalendarId, externalId),
    );
    let keptId: number | null = null;
    if (fresh && !fresh.cancelled) {
      const applied = await applyEvents(ctx, [fresh], null, undefined, true);
      keptId = applied.changed[0] ?? eventId;
    } else if (eventId !== null) {
      await calendarEvents.mirrored().deleteMany([eventId]);
    }
    await repo.insertConflict({
      userId: mapping.userId,
      mappingId: mapping.id,
      eventId: keptId,
      externalId,
      localChange,
      now: nowIso(),
    });
    log.info({ mappingId: mapping.id, localChange }, 'calendar sync: conflict, provider version kept');
  }

  return {
    withLease,

    /** Pulls provider changes into the mapped calendar. Null when the mapping is not syncable now. */
    async sync(mappingId: number): Promise<{ result: SyncResult; mapping: Mapping } | null> {
      const outer = await contextOf(mappingId);
      if (!outer) return null;
      return withLease(mappingId, async () => {
        // Read again under the lease: a sync that held it may have moved the cursor.
        const ctx = await contextOf(mappingId);
        if (!ctx) return null;
        const { mapping, port } = ctx;
        const rebase =
          port.windowed &&
          mapping.syncWindowEnd !== null &&
          Date.parse(mapping.syncWindowEnd) - Date.now() < WINDOW_REBASE_DAYS * DAY_MS;
        let pulled: Awaited<ReturnType<typeof pull>>;
        try {
          pulled = await pull(ctx, !mapping.syncToken || rebase);
        } catch (error) {
          if (!(error instanceof SyncTokenExpiredError)) throw error;
          // 410: the cursor expired; list everything again (upserts by provider id, then sweep).
          log.info({ mappingId }, 'calendar sync: sync token expired, full resync');
          pulled = await pull(ctx, true);
        }
        const now = nowIso();
        await repo.setSyncResult(mapping.id, {
          syncToken: pulled.syncToken,
          syncWindowEnd: pulled.windowEnd,
          lastSyncedAt: now,
        });
        if (ctx.connection.lastErrorCode !== null) await repo.setError(ctx.connection.id, null, now);
        return { result: pulled.result, mapping };
      });
    },

    /** Pushes one local change to the provider (bidirectional mappings only). */
    async push(job: PushJob): Promise<void> {
      const outer = await contextOf(job.mappingId);
      if (!outer?.mapping.bidirectionalSync) return;
      await withLease(job.mappingId, async () => {
        const ctx = await contextOf(job.mappingId);
        if (!ctx?.mapping.bidirectionalSync) return;
        if (job.type === 'deleted') await pushDelete(ctx, job);
        else await pushWrite(ctx, job.eventId);
      });
    },

    /** Opens, renews or replaces the calendar's push channel. */
    async ensureChannel(mappingId: number): Promise<void> {
      const outer = await contextOf(mappingId);
      if (!outer) return;
      await withLease(mappingId, async () => {
        const ctx = await contextOf(mappingId);
        if (!ctx) return;
        const { mapping, port, connection } = ctx;
        const expires = mapping.channelExpiresAt ? Date.parse(mapping.channelExpiresAt) : 0;
        if (mapping.channelId && expires - Date.now() > CHANNEL_RENEW_MARGIN_MS) return;
        const now = nowIso();
        if (mapping.channelId && expires > Date.now()) {
          const renewed = await tokens.withAccess(connection, (access) =>
            port.renewWatch(
              access,
              {
                channelId: mapping.channelId!,
                resourceId: mapping.channelResourceId,
                expiresAt: mapping.channelExpiresAt!,
              },
              port.maxChannelTtlSeconds,
            ),
          );
          if (renewed) {
            await repo.extendChannel(mapping.id, renewed.expiresAt, now);
            return;
          }
        }
        const secret = randomToken();
        const channelId = randomUUID();
        const pending = {
          channelId,
          resourceId: null,
          tokenHash: sha256(secret),
          expiresAt: new Date(Date.now() + port.maxChannelTtlSeconds * 1000).toISOString(),
        };
        // A provider that takes our channel id may notify before watch() returns (A's `sync`
        // message): the channel is known from the start.
        if (port.clientChannelIds) await repo.setChannel(mapping.id, pending, now);
        let channel: Awaited<ReturnType<typeof port.watch>>;
        try {
          channel = await tokens.withAccess(connection, (access) =>
            port.watch(access, {
              calendarId: mapping.externalCalendarId,
              channelId,
              address: deps.webhookUrl(mapping.provider),
              secret,
              ttlSeconds: port.maxChannelTtlSeconds,
            }),
          );
        } catch (error) {
          if (port.clientChannelIds) {
            const previous = mapping.channelId
              ? {
                  channelId: mapping.channelId,
                  resourceId: mapping.channelResourceId,
                  tokenHash: mapping.channelTokenHash ?? '',
                  expiresAt: mapping.channelExpiresAt ?? now,
                }
              : null;
            await repo.setChannel(mapping.id, previous, nowIso());
          }
          throw error;
        }
        await repo.setChannel(
          mapping.id,
          {
            ...pending,
            channelId: channel.channelId,
            resourceId: channel.resourceId,
            expiresAt: channel.expiresAt,
          },
          nowIso(),
        );
        if (mapping.channelId) {
          // The old channel would keep notifying until it expires; stop it (best effort).
          const old = { channelId: mapping.channelId, resourceId: mapping.channelResourceId };
          await tokens
            .withAccess(connection, (access) => port.stopWatch(access, old))
            .catch((error) => log.warn({ err: error, mappingId }, 'calendar sync: old channel not stopped'));
        }
      });
    },
  };
}

export type SyncEngine = ReturnType<typeof createSyncEngine>;
