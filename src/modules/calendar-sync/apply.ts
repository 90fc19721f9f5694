import { DateTime } from 'luxon';
import { type Db, inTransaction } from '../../db/database.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import type { EventValues, Reminder, SyncedEventRow } from '../events/schemas.js';
import { checkEvent, type EventFields, type EventService } from '../events/service.js';
import type { ExternalEvent, ExternalTime } from './providers/port.js';
import { createSyncRepo, type Mapping, type SyncRepo } from './repo.js';
import { noChanges, type SyncContext, type SyncLogger, type SyncResult } from './sync-context.js';

/** Our EXDATE lines carry this x-param (RFC 5545 allows them), so they can be rebuilt and are never pushed. */
const OWN_EXDATE = 'X-SYNC-EXCEPTION=TRUE';
const EXDATES_PER_LINE = 50;

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
export const isOwnExdate = (line: string) =>
  line.toUpperCase().startsWith('EXDATE;') && line.includes(OWN_EXDATE);

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
    row.transparency === values.transparency &&
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

type SyncedEvents = ReturnType<EventService['mirrored']>;

/** Pages being applied by a full listing: what the provider still lists (the rest is swept). */
export interface Seen {
  events: Set<string>;
  instances: Set<string>;
}

/** Local event values of an external event, or null when it cannot be stored. */
function localValues(
  mapping: Mapping,
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
    reminders: mapping.importReminders ? (event.reminders ?? []) : [],
    transparency: event.transparency ?? 'opaque',
  };
  try {
    return checkEvent(mapping.localCalendarId, fields);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
  if (recurrence) {
    // A rule this service cannot expand (e.g. hourly): keep the first occurrence rather than nothing.
    try {
      return checkEvent(mapping.localCalendarId, { ...fields, recurrence: null });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return null;
}

export interface ApplyDeps {
  db: Db;
  /** The events module, which writes the events a mapped calendar mirrors. */
  events: Pick<EventService, 'mirrored'>;
  log: SyncLogger;
}

/** Writes provider events into the mapped calendar: the local half of every pull and conflict. */
export function createEventApplier(deps: ApplyDeps) {
  const { db, log } = deps;
  // `events` names the provider's events below.
  const calendarEvents = deps.events;

  /**
   * Applies one page of provider changes in one transaction: exceptions of series first, then
   * deletions, then upserts (one read for the page's existing rows, multi-row inserts, updates
   * only where the ETag and the content differ), then series whose exceptions changed.
   */
  async function applyEvents(
    ctx: SyncContext,
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
    const result = noChanges(false);

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
            mapping,
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
    ctx: SyncContext,
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

  return applyEvents;
}

export type ApplyEvents = ReturnType<typeof createEventApplier>;
