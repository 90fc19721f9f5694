import { type Kysely, type Selectable, sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import { keepsTimeAt, lapsedAt } from '../../db/reservation-time.js';
import type { ResourcesTable } from '../../db/tables/resources.js';
import type { Database } from '../../db/types.js';
import { busySpans } from '../events/busy.js';
import { type Interval, mergeIntervals } from './engine.js';

export type CatalogueRow = Selectable<ResourcesTable>;

const digits = (text: string, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
};

/**
 * Stored timestamps are always `YYYY-MM-DDTHH:mm:ss.sssZ`; reading the digits is
 * several times cheaper than Date.parse, and an overlap read parses thousands.
 */
function isoToMillis(text: string): number {
  if (text.length !== 24) return Date.parse(text);
  return Date.UTC(
    digits(text, 0, 4),
    digits(text, 5, 7) - 1,
    digits(text, 8, 10),
    digits(text, 11, 13),
    digits(text, 14, 16),
    digits(text, 17, 19),
    digits(text, 20, 23),
  );
}

/** Instants of one lane as `start,end,start,end...`: epoch milliseconds (PostgreSQL) or stored ISO text (SQLite). */
function intervalsOf(joined: string): Interval[] {
  const intervals: Interval[] = [];
  if (joined.charCodeAt(0) >= 48 && joined.charCodeAt(4) === 45) {
    // ISO text: fixed 24-character fields when every separator sits where that puts it.
    let fixed = (joined.length + 1) % 25 === 0;
    for (let at = 24; fixed && at < joined.length; at += 25) fixed = joined.charCodeAt(at) === 44;
    if (fixed) {
      for (let at = 0; at < joined.length; at += 50)
        intervals.push({
          start: isoToMillis(joined.slice(at, at + 24)),
          end: isoToMillis(joined.slice(at + 25, at + 49)),
        });
      return intervals;
    }
    const parts = joined.split(',');
    for (let i = 0; i < parts.length; i += 2)
      intervals.push({ start: isoToMillis(parts[i]!), end: isoToMillis(parts[i + 1]!) });
    return intervals;
  }
  const parts = joined.split(',');
  for (let i = 0; i < parts.length; i += 2)
    intervals.push({ start: Number(parts[i]), end: Number(parts[i + 1]) });
  return intervals;
}

/** A lane's reservations as one `start,end,...` text (see `intervalsOf`); null for none. */
const aggregatedTimes = (dialect: Dialect) =>
  dialect === 'postgres'
    ? sql<
        string | null
      >`string_agg(floor(extract(epoch from start_time) * 1000)::bigint || ',' || floor(extract(epoch from end_time) * 1000)::bigint, ',')`
    : sql<string | null>`group_concat(start_time || ',' || end_time, ',')`;

export function createAvailabilityRepo(db: Executor) {
  return {
    /** A resource with its lanes, or a lane with its parent and siblings: parent first, lanes in order. */
    async family(organisationId: number, resourceId: number): Promise<CatalogueRow[]> {
      const row = await db
        .selectFrom('resources')
        .select(['id', 'parentResourceId'])
        .where('organisationId', '=', organisationId)
        .where('id', '=', resourceId)
        .executeTakeFirst();
      if (!row) return [];
      const parentId = row.parentResourceId ?? row.id;
      const rows = await db
        .selectFrom('resources')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where((eb) => eb.or([eb('id', '=', parentId), eb('parentResourceId', '=', parentId)]))
        .execute();
      return rows.sort((a, b) => (a.capacityLaneIndex ?? 0) - (b.capacityLaneIndex ?? 0));
    },

    /** Every resource and lane of a type, parents before lanes within each family. */
    async ofType(organisationId: number, resourceTypeId: number): Promise<CatalogueRow[]> {
      return db
        .selectFrom('resources')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('resourceTypeId', '=', resourceTypeId)
        .orderBy('id')
        .execute();
    },

    /**
     * Reservations keeping their time at `nowMs` on these lanes overlapping `range`, as
     * intervals by lane, read as one aggregated row per lane: building a row object per
     * reservation was half the cost of an answer. No reservation is longer than
     * `lookbackMs`, so none starting earlier than that before the range can reach into it:
     * the index range scan stops there. `keptUntil` is the earliest expiry of a hold among
     * them (Infinity for none): what was read is true only until then.
     */
    async busyByLane(
      laneIds: number[],
      range: Interval,
      lookbackMs: number,
      dialect: Dialect,
      nowMs: number,
    ): Promise<{ byLane: Map<number, Interval[]>; keptUntil: number }> {
      const byLane = new Map<number, Interval[]>(laneIds.map((id) => [id, []]));
      let keptUntil = Number.POSITIVE_INFINITY;
      if (laneIds.length === 0) return { byLane, keptUntil };
      const rows = await db
        .selectFrom('reservations')
        .select((eb) => [
          'resourceId',
          aggregatedTimes(dialect).as('times'),
          eb.fn.min('expiresAt').as('firstExpiry'),
        ])
        .where('resourceId', 'in', laneIds)
        .where('startTime', '>', new Date(range.start - lookbackMs).toISOString())
        .where('startTime', '<', new Date(range.end).toISOString())
        .where('endTime', '>', new Date(range.start).toISOString())
        .where(keepsTimeAt(new Date(nowMs).toISOString()))
        .groupBy('resourceId')
        .execute();
      for (const row of rows) {
        byLane.set(row.resourceId!, intervalsOf(row.times!));
        if (row.firstExpiry) keptUntil = Math.min(keptUntil, isoToMillis(row.firstExpiry));
      }
      return { byLane, keptUntil };
    },
  };
}

export type AvailabilityRepo = ReturnType<typeof createAvailabilityRepo>;

/**
 * Busy time of managers (issue 26): the opaque events of every calendar these people own
 * that may overlap `range`, as spans by person, read through `executor` (a booking's
 * own). Mirrors of reservations (events with a booking reservation) are left out: the
 * reservation already takes its time. Only times are read and answered, never what the
 * events are. One query on migration 0027's partial index (opaque, unmirrored events by
 * calendar and start); recurring events are expanded in memory.
 */
export async function managerBusy(
  executor: Executor,
  ownerIds: readonly number[],
  range: Interval,
): Promise<Map<number, Interval[]>> {
  const byOwner = new Map<number, Interval[]>();
  if (ownerIds.length === 0) return byOwner;
  const from = new Date(range.start).toISOString();
  const rows = await executor
    .selectFrom('events')
    .innerJoin('calendars', 'calendars.id', 'events.calendarId')
    .select([
      'calendars.ownerId',
      'events.startTime',
      'events.endTime',
      'events.allDay',
      'events.timezone',
      'events.recurrence',
      'events.occursUntil',
    ])
    .where('calendars.ownerId', 'in', [...new Set(ownerIds)])
    .where('events.transparency', '=', 'opaque')
    .where('events.bookingReservationId', 'is', null)
    .where('events.startTime', '<', new Date(range.end).toISOString())
    .where((eb) => eb.or([eb('events.occursUntil', 'is', null), eb('events.occursUntil', '>', from)]))
    .execute();
  const rowsByOwner = new Map<number, typeof rows>();
  for (const row of rows) {
    const list = rowsByOwner.get(row.ownerId);
    if (list) list.push(row);
    else rowsByOwner.set(row.ownerId, [row]);
  }
  for (const [ownerId, list] of rowsByOwner) {
    const spans: Interval[] = [];
    for (const row of list) {
      if (row.recurrence === null) {
        // The common case, without the expansion's machinery: stored instants are fixed-width text.
        const start = isoToMillis(row.startTime);
        const end = isoToMillis(row.endTime);
        if (start < range.end && end > range.start) spans.push({ start, end });
      } else spans.push(...busySpans([row], range.start, range.end));
    }
    // Merged once per person here, not once per lane of each of their resources by the engine.
    byOwner.set(ownerId, mergeIntervals(spans));
  }
  return byOwner;
}

/** A version as text (PostgreSQL reads a bigint as text); no row is version 0. */
const versionText = (version: string | number | null | undefined) => String(version ?? 0);

/**
 * The versions the answer cache is labelled with (migration 0013's triggers raise them),
 * each one precompiled statement: read on every availability request, hit or miss.
 */
export function createVersionReads(db: Kysely<Database>) {
  const selectType = precompiled(
    db.selectFrom('availabilityVersions').select('version').where('resourceTypeId', '=', 0),
  );
  // A resource's answers are its parent's type's (a lane's parent, or the resource itself).
  const selectResource = precompiled(
    db
      .selectFrom('resources as r')
      .innerJoin('resources as p', (join) =>
        join.on((eb) => eb('p.id', '=', eb.fn.coalesce('r.parentResourceId', 'r.id'))),
      )
      .leftJoin('availabilityVersions as v', 'v.resourceTypeId', 'p.resourceTypeId')
      .select(['p.resourceTypeId', 'v.version'])
      .where('r.organisationId', '=', 0)
      .where('r.id', '=', 0),
  );
  return {
    async ofType(resourceTypeId: number): Promise<string> {
      const [row] = await selectType(db, resourceTypeId);
      return versionText(row?.version);
    },
    /** The type whose version labels the resource's answers, and that version; undefined for no such resource. */
    async ofResource(
      organisationId: number,
      resourceId: number,
    ): Promise<{ resourceTypeId: number; version: string } | undefined> {
      const [row] = await selectResource(db, organisationId, resourceId);
      return row && { resourceTypeId: row.resourceTypeId, version: versionText(row.version) };
    },
  };
}

/**
 * The read of every booking, built and compiled once on `db` (Kysely's build-and-compile
 * costs more than SQLite's execution of it) and run in whatever executor the booking
 * uses: the type's resources and lanes, each with its reservations near the requested
 * time aggregated into one column, so a booking reads its catalogue and what is taken
 * in one round trip.
 */
export function createBookingReads(db: Kysely<Database>, dialect: Dialect) {
  const selectLanes = precompiled(
    db
      .selectFrom('resources')
      .selectAll('resources')
      .select((eb) =>
        eb
          .selectFrom('reservations')
          .select(aggregatedTimes(dialect).as('times'))
          .whereRef('reservations.resourceId', '=', 'resources.id')
          .where('reservations.startTime', '>', '')
          .where('reservations.startTime', '<', '')
          .where('reservations.endTime', '>', '')
          // Statuses as literals, so the values above, the clocks and below stay the only parameters.
          .where(keepsTimeAt(''))
          .as('busy'),
      )
      // Whether a hold on the lane has lapsed unmarked (a probe of a nearly empty partial index).
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('reservations')
              .select(sql.lit(1).as('one'))
              .whereRef('reservations.resourceId', '=', 'resources.id')
              .where(lapsedAt('')),
          )
          .as('lapsed'),
      )
      .where('resources.organisationId', '=', 0)
      .where('resources.resourceTypeId', '=', 0)
      .orderBy('resources.id'),
  );
  return {
    /**
     * Every resource and lane of a type in id order (parents before their lanes), and the
     * reservations keeping their time at `now` (ISO) overlapping `range` on each, as
     * intervals by lane; none is longer than `lookbackMs` (see `busyByLane`). `lapsed`: the
     * lanes with a hold past its expiry at `now` whose row still says it holds.
     */
    async lanes(
      executor: Executor,
      organisationId: number,
      resourceTypeId: number,
      range: Interval,
      lookbackMs: number,
      now: string,
    ): Promise<{ catalogue: CatalogueRow[]; busy: Map<number, Interval[]>; lapsed: Set<number> }> {
      // Parameters in the order the SQL holds them: the subquery in the select list first.
      const rows = await selectLanes(
        executor,
        new Date(range.start - lookbackMs).toISOString(),
        new Date(range.end).toISOString(),
        new Date(range.start).toISOString(),
        now,
        now,
        organisationId,
        resourceTypeId,
      );
      const busy = new Map<number, Interval[]>();
      const lapsed = new Set<number>();
      for (const row of rows) {
        if (row.busy) busy.set(row.id, intervalsOf(row.busy));
        if (row.lapsed) lapsed.add(row.id);
      }
      return { catalogue: rows, busy, lapsed };
    },
  };
}
