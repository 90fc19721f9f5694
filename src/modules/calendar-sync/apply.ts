import { type Db, inTransaction } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import type { SyncedEventRow } from '../events/schemas.js';
import type { EventService } from '../events/service.js';
import { exdatesBySeries, exdateValue, refreshSeriesExdates } from './exdates.js';
import { localValues, sameContent, validZone } from './local-values.js';
import type { ExternalEvent } from './providers/port.js';
import { createSyncRepo, type Mapping, type SyncRepo } from './repo.js';
import { noChanges, type SyncContext, type SyncLogger, type SyncResult } from './sync-context.js';

type SyncedEvents = ReturnType<EventService['mirrored']>;

/** Pages being applied by a full listing: what the provider still lists (the rest is swept). */
export interface Seen {
  events: Set<string>;
  instances: Set<string>;
}

export interface ApplyDeps {
  db: Db;
  /** The events module, which writes the events a mapped calendar mirrors. */
  events: Pick<EventService, 'mirrored'>;
  log: SyncLogger;
}

/**
 * Applies one page of provider changes in one transaction: exceptions of series first, then
 * deletions, then upserts (one read for the page's existing rows, multi-row inserts, updates
 * only where the ETag and the content differ), then series whose exceptions changed.
 */
export type ApplyEvents = (
  ctx: SyncContext,
  events: readonly ExternalEvent[],
  pageZone: string | null,
  seen: Seen | undefined,
  force?: boolean,
) => Promise<SyncResult>;

/** One page's apply, inside its transaction: where it writes and what it has done so far. */
interface PageWork {
  mapping: Mapping;
  repo: SyncRepo;
  mirrored: SyncedEvents;
  now: string;
  result: SyncResult;
}

/** What a page asks for: events to remove, events to write, series whose exceptions changed. */
interface PageChanges {
  removals: string[];
  upserts: ExternalEvent[];
  dirtySeries: Set<string>;
}

/** Writes provider events into the mapped calendar: the local half of every pull and conflict. */
export function createEventApplier(deps: ApplyDeps): ApplyEvents {
  const { db, log } = deps;
  // `events` names the provider's events below.
  const calendarEvents = deps.events;

  return async (ctx, events, pageZone, seen, force = false) => {
    const { mapping } = ctx;
    const zone = validZone(pageZone) ?? ctx.calendarTz;
    const now = nowIso();
    const result = noChanges(false);

    return inTransaction(db.kysely, async (trx) => {
      const work: PageWork = {
        mapping,
        repo: createSyncRepo(trx),
        mirrored: calendarEvents.mirrored(trx),
        now,
        result,
      };
      const changes = await sortPage(work, events, seen);
      if (changes.removals.length > 0) await removeEvents(work, changes.removals);
      if (changes.upserts.length > 0) await upsertEvents(work, changes, zone, force);
      if (changes.dirtySeries.size > 0) await refreshSeriesExdates(work, log, [...changes.dirtySeries]);
      return result;
    });
  };
}

/**
 * Sorts a page into removals and upserts; an occurrence moved, changed or cancelled at the
 * provider is stored as its series' exception on the way.
 */
async function sortPage(
  work: PageWork,
  events: readonly ExternalEvent[],
  seen: Seen | undefined,
): Promise<PageChanges> {
  const { mapping } = work;
  // B: occurrences of a series that was created here (pushed as a series) belong to that series.
  const masterIds = [
    ...new Set(events.flatMap((event) => (event.seriesMasterId ? [event.seriesMasterId] : []))),
  ];
  const localSeries = new Set(
    masterIds.length > 0
      ? (await work.mirrored.findByExternalIds(mapping.localCalendarId, mapping.provider, masterIds)).map(
          (row) => row.externalId,
        )
      : [],
  );

  const changes: PageChanges = { removals: [], upserts: [], dirtySeries: new Set() };
  for (const event of events) {
    if (event.seriesMasterId && localSeries.has(event.seriesMasterId)) {
      seen?.events.add(event.seriesMasterId);
      continue;
    }
    if (event.seriesId && event.originalStart) {
      // A: a moved, changed or cancelled occurrence. The series excludes its original start;
      // a changed one lives on as an event of its own.
      await work.repo.upsertException(
        mapping.id,
        event.seriesId,
        event.externalId,
        exdateValue(event.originalStart),
        work.now,
      );
      seen?.instances.add(event.externalId);
      changes.dirtySeries.add(event.seriesId);
      if (event.cancelled) changes.removals.push(event.externalId);
      else {
        seen?.events.add(event.externalId);
        changes.upserts.push({ ...event, recurrence: null });
      }
      continue;
    }
    if (event.cancelled) changes.removals.push(event.externalId);
    else {
      seen?.events.add(event.externalId);
      changes.upserts.push(event);
    }
  }
  return changes;
}

/** Deletes the page's removed events; a deleted series takes its changed occurrences with it. */
async function removeEvents(work: PageWork, removals: string[]): Promise<void> {
  const { mapping, mirrored } = work;
  const found = await mirrored.findByExternalIds(mapping.localCalendarId, mapping.provider, removals);
  const series = found.filter((row) => row.recurrence !== null).map((row) => row.externalId);
  const instances = series.length > 0 ? await work.repo.deleteExceptionsOfSeries(mapping.id, series) : [];
  const instanceRows =
    instances.length > 0
      ? await mirrored.findByExternalIds(mapping.localCalendarId, mapping.provider, instances)
      : [];
  const ids = [...new Set([...found, ...instanceRows].map((row) => row.id))];
  await mirrored.deleteMany(ids);
  work.result.deleted += ids.length;
}

/**
 * Writes the page's events: new ones in one multi-row insert, known ones only where the ETag
 * (unless forced) and the content differ. A series written here needs no EXDATE refresh.
 */
async function upsertEvents(work: PageWork, changes: PageChanges, zone: string, force: boolean) {
  const { mapping, mirrored, result, now } = work;
  const { upserts, dirtySeries } = changes;
  const existing = new Map(
    (
      await mirrored.findByExternalIds(
        mapping.localCalendarId,
        mapping.provider,
        upserts.map((event) => event.externalId),
      )
    ).map((row) => [row.externalId, row]),
  );
  const ruled = upserts.filter((event) => event.recurrence).map((event) => event.externalId);
  const exdates = await exdatesBySeries(work.repo, mapping.id, ruled);
  const inserts: Parameters<SyncedEvents['insertMany']>[0] = [];
  for (const event of upserts) {
    const row = existing.get(event.externalId);
    if (row && !force && event.etag !== null && row.externalEtag === event.etag) {
      result.unchanged += 1;
      continue;
    }
    const values = localValues(mapping, event, zone, exdates.get(event.externalId) ?? []);
    if (!values) {
      result.skipped += 1;
      continue;
    }
    dirtySeries.delete(event.externalId);
    const external = {
      externalProvider: mapping.provider,
      externalId: event.externalId,
      externalEtag: event.etag,
      externalLastSyncedAt: now,
    };
    if (row) await updateEvent(work, row, { values, external });
    else inserts.push({ values, external });
  }
  const ids = await mirrored.insertMany(inserts, now);
  result.inserted += ids.length;
  result.changed.push(...ids);
}

/** Updates a known event; one whose content is the same only takes the new ETag and sync time. */
async function updateEvent(
  work: PageWork,
  row: SyncedEventRow,
  { values, external }: Parameters<SyncedEvents['insertMany']>[0][number],
): Promise<void> {
  const { mapping, mirrored, result } = work;
  if (sameContent(row, values, mapping.importReminders)) {
    await mirrored.setExternal(row.id, external);
    result.unchanged += 1;
    return;
  }
  const { calendarId: _calendarId, reminders, ...rest } = values;
  // Without importReminders the local reminders are the user's: never overwritten.
  await mirrored.update(row.id, mapping.importReminders ? { ...rest, reminders } : rest, external, work.now);
  result.updated += 1;
  result.changed.push(row.id);
}
