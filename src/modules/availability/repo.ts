import { type Kysely, type Selectable, sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import { minutesAfter } from '../../db/instants.js';
import { keepsTimeAt, lapsedAt } from '../../db/reservation-time.js';
import type { ResourcesTable } from '../../db/tables/resources.js';
import type { Database } from '../../db/types.js';
import { type BusyEventRow, busySpans } from '../events/busy.js';
import { prefixedTypeColumns, type StoredResourceType } from '../resource-types/service.js';
import { disjointSpans, type Interval, NO_SPANS, type Spans, sortedSpans } from './engine.js';

export type CatalogueRow = Selectable<ResourcesTable>;

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (month 1..12), as Date.UTC counts them. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const COMMA = 44;
/** The length of a stored timestamp, `YYYY-MM-DDTHH:mm:ss.sssZ`: every stored one has this form. */
const STORED_ISO_LENGTH = 24;

/** The number written in ASCII digits at `bytes[from, to)`. */
const digits = (bytes: Uint8Array, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + bytes[i]! - 48;
  return n;
};
/** The two ASCII digits at `at` as a number (48 is the code of 0: 10 * 48 + 48 = 528). */
const twoDigits = (bytes: Uint8Array, at: number) => bytes[at]! * 10 + bytes[at + 1]! - 528;

/** Whether `bytes` hold a stored timestamp at `at`, followed by a comma or the end. */
const isStoredIsoAt = (bytes: Uint8Array, at: number) =>
  bytes[at + 4] === 45 &&
  bytes[at + 10] === 84 &&
  bytes[at + 19] === 46 &&
  bytes[at + 23] === 90 &&
  (at + STORED_ISO_LENGTH === bytes.length || bytes[at + STORED_ISO_LENGTH] === COMMA);

/** The date last read (as YYYYMMDD) and its day number: a read's instants mostly share their dates. */
let lastDate = -1;
let lastDays = 0;

/** The instant of the stored timestamp at `at`, by arithmetic on its digits: several times cheaper than Date.parse. */
function storedIsoAt(bytes: Uint8Array, at: number): number {
  const date =
    (twoDigits(bytes, at) * 100 + twoDigits(bytes, at + 2)) * 10_000 +
    twoDigits(bytes, at + 5) * 100 +
    twoDigits(bytes, at + 8);
  if (date !== lastDate) {
    lastDate = date;
    lastDays = daysFromCivil(Math.floor(date / 10_000), Math.floor(date / 100) % 100, date % 100);
  }
  return (
    lastDays * 86_400_000 +
    twoDigits(bytes, at + 11) * 3_600_000 +
    twoDigits(bytes, at + 14) * 60_000 +
    twoDigits(bytes, at + 17) * 1000 +
    (bytes[at + 20]! - 48) * 100 +
    twoDigits(bytes, at + 21)
  );
}

/**
 * Instants joined as `start,end,start,end...` (see `aggregatedTimes`), read in place into
 * spans by start: an overlap read parses tens of thousands, so no substring or object per
 * instant, and bytes rather than a string's characters (a `charCodeAt` costs several times a
 * typed array's read). SQLite's stored text comes as bytes, each instant 24 of them, so
 * its commas are every 25th: no search for them. PostgreSQL's epoch milliseconds come as
 * text, of any width.
 */
function spansOf(joined: string | Uint8Array): Spans {
  const bytes = typeof joined === 'string' ? Buffer.from(joined, 'latin1') : joined;
  const fields = (bytes.length + 1) / (STORED_ISO_LENGTH + 1);
  if (Number.isInteger(fields)) {
    const spans = new Float64Array(fields);
    let f = 0;
    for (let at = 0; f < fields && isStoredIsoAt(bytes, at); at += STORED_ISO_LENGTH + 1)
      spans[f++] = storedIsoAt(bytes, at);
    if (f === fields) return sortedSpans(spans);
  }
  return sortedSpans(anyInstants(bytes));
}

/** Instants of any width: epoch milliseconds (possibly negative) or text Date.parse reads. */
function anyInstants(bytes: Uint8Array): Float64Array {
  let fields = 1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === COMMA) fields++;
  const spans = new Float64Array(fields);
  let at = 0;
  for (let f = 0; f < fields; f++) {
    let end = at;
    while (end < bytes.length && bytes[end] !== COMMA) end++;
    if (end - at === STORED_ISO_LENGTH && isStoredIsoAt(bytes, at)) spans[f] = storedIsoAt(bytes, at);
    else if (end - at < 16 && bytes[end - 1] !== 90) {
      const negative = bytes[at] === 45;
      const n = digits(bytes, negative ? at + 1 : at, end);
      spans[f] = negative ? -n : n;
    } else spans[f] = Date.parse(String.fromCharCode(...bytes.subarray(at, end)));
    at = end + 1;
  }
  return spans;
}

/** Spans of `intervals` (any order), by start. */
const spansFrom = (intervals: readonly Interval[]) => {
  const spans = new Float64Array(intervals.length * 2);
  intervals.forEach((i, k) => {
    spans[2 * k] = i.start;
    spans[2 * k + 1] = i.end;
  });
  return sortedSpans(spans);
};

/**
 * Start and end instants of `table`'s rows as one `start,end,...` text (see `spansOf`);
 * null for no row. Rows come in the order the index scan reads them, nearly always by
 * start: `spansOf` sorts what is not (an ordered aggregate costs SQLite a sort of every
 * row). PostgreSQL answers epoch milliseconds, through double precision (several times
 * cheaper than `extract`'s numeric), rounded to the millisecond; SQLite its stored text,
 * as a blob: as a string it would be decoded from UTF-8 only to be read back byte by byte.
 */
const aggregatedTimes = (dialect: Dialect, table: 'reservations' | 'events') => {
  const start = sql.ref(`${table}.start_time`);
  const end = sql.ref(`${table}.end_time`);
  // Stored instants are whole milliseconds: rounding the double is exact, and a date_trunc call
  // per instant cost a quarter of the aggregate (1.3 of 5.4 ms for 10,000 rows).
  const ms = (column: typeof start) => sql`round(date_part('epoch', ${column}) * 1000)::bigint`;
  return dialect === 'postgres'
    ? sql<string | Uint8Array | null>`string_agg(${ms(start)} || ',' || ${ms(end)}, ',')`
    : sql<string | Uint8Array | null>`cast(group_concat(${start} || ',' || ${end}, ',') as blob)`;
};

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
    ): Promise<{ byLane: Map<number, Spans>; keptUntil: number }> {
      const byLane = new Map<number, Spans>(laneIds.map((id) => [id, NO_SPANS]));
      let keptUntil = Number.POSITIVE_INFINITY;
      if (laneIds.length === 0) return { byLane, keptUntil };
      const rows = await db
        .selectFrom('reservations')
        .select((eb) => [
          'resourceId',
          aggregatedTimes(dialect, 'reservations').as('times'),
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
        byLane.set(row.resourceId!, spansOf(row.times!));
        if (row.firstExpiry) keptUntil = Math.min(keptUntil, Date.parse(row.firstExpiry));
      }
      return { byLane, keptUntil };
    },
  };
}

export type AvailabilityRepo = ReturnType<typeof createAvailabilityRepo>;

/**
 * Busy time of managers (issue 26): the opaque events of every calendar these people own
 * that may overlap `range`, as spans by person (by start, disjoint), read through
 * `executor` (a booking's own). Mirrors of reservations (events with a booking
 * reservation) are left out: the reservation already takes its time. Only times are read
 * and answered, never what the events are. Single events, nearly all of them, come
 * aggregated into one text per person, unordered (sorted in memory), as a lane's reservations do
 * (a row object per event was the larger part of an answer's cost); recurring ones as rows,
 * expanded in memory. Each half reads its own partial index of opaque, unmirrored events:
 * single ones by calendar and end (migration 0043: the events ending after the range's
 * start, not a calendar's whole history), recurring ones by calendar and start (0037).
 */
export async function managerBusy(
  executor: Executor,
  dialect: Dialect,
  ownerIds: readonly number[],
  range: Interval,
): Promise<Map<number, Spans>> {
  const byOwner = new Map<number, Spans>();
  if (ownerIds.length === 0) return byOwner;
  const from = new Date(range.start).toISOString();
  const busyEvents = () =>
    executor
      .selectFrom('events')
      .innerJoin('calendars', 'calendars.id', 'events.calendarId')
      .where('calendars.ownerId', 'in', [...new Set(ownerIds)])
      // A literal, as the partial indexes spell it: with a parameter SQLite cannot tell the index
      // holds only opaque events and reads every event's row to check (3.3 ms against 1.5 for
      // 10,000 events).
      .where('events.transparency', '=', sql.lit('opaque'))
      .where('events.bookingReservationId', 'is', null)
      .where('events.startTime', '<', new Date(range.end).toISOString());
  const rows = await busyEvents()
    .select([
      'calendars.ownerId',
      aggregatedTimes(dialect, 'events').as('times'),
      sql<string | null>`null`.as('startTime'),
      sql<string | null>`null`.as('endTime'),
      sql<boolean | number | null>`null`.as('allDay'),
      sql<string | null>`null`.as('timezone'),
      sql<string | null>`null`.as('recurrence'),
      sql<string | null>`null`.as('occursUntil'),
    ])
    .where('events.recurrence', 'is', null)
    .where('events.endTime', '>', from)
    .groupBy('calendars.ownerId')
    .unionAll(
      busyEvents()
        .select([
          'calendars.ownerId',
          sql<string | null>`null`.as('times'),
          'events.startTime',
          'events.endTime',
          'events.allDay',
          'events.timezone',
          'events.recurrence',
          'events.occursUntil',
        ])
        .where('events.recurrence', 'is not', null)
        .where((eb) => eb.or([eb('events.occursUntil', 'is', null), eb('events.occursUntil', '>', from)])),
    )
    .execute();
  const single = new Map<number, Spans>();
  const recurring = new Map<number, BusyEventRow[]>();
  for (const row of rows) {
    if (row.times !== null) single.set(row.ownerId, spansOf(row.times));
    else if (row.recurrence !== null) {
      const event = row as BusyEventRow;
      const list = recurring.get(row.ownerId);
      if (list) list.push(event);
      else recurring.set(row.ownerId, [event]);
    }
  }
  for (const ownerId of new Set([...single.keys(), ...recurring.keys()])) {
    const series = recurring.get(ownerId);
    // Merged once per person here, not once per lane of each of their resources by the engine.
    const spans = disjointSpans(
      single.get(ownerId) ?? NO_SPANS,
      series ? spansFrom(busySpans(series, range.start, range.end)) : NO_SPANS,
    );
    if (spans.length > 0) byOwner.set(ownerId, spans);
  }
  return byOwner;
}

/** A version as text (PostgreSQL reads a sum of bigints as text); no row is version 0. */
const versionText = (version: string | number | bigint | null | undefined) => String(version ?? 0);

/**
 * The versions the answer cache is labelled with (migration 0013's triggers raise them),
 * each one precompiled statement: read on every availability request, hit or miss.
 */
export function createVersionReads(db: Kysely<Database>) {
  // The sum of the type's rows (PostgreSQL spreads a version over several, migration 0044).
  const selectType = precompiled(() =>
    db
      .selectFrom('availabilityVersions')
      .select((eb) => eb.fn.sum('version').as('version'))
      .where('resourceTypeId', '=', 0),
  );
  // A resource's answers are its parent's type's (a lane's parent, or the resource itself).
  const selectResource = precompiled(() =>
    db
      .selectFrom('resources as r')
      .innerJoin('resources as p', (join) =>
        join.on((eb) => eb('p.id', '=', eb.fn.coalesce('r.parentResourceId', 'r.id'))),
      )
      .select((eb) => [
        'p.resourceTypeId',
        eb
          .selectFrom('availabilityVersions as v')
          .select((eb) => eb.fn.sum('v.version').as('version'))
          .whereRef('v.resourceTypeId', '=', 'p.resourceTypeId')
          .as('version'),
      ])
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

/** What a booking reads in one statement: its type, the type's lanes, and what is taken on them. */
export interface BookingRead {
  type: StoredResourceType;
  /** Every resource and lane of the type in id order (parents before their lanes). */
  catalogue: CatalogueRow[];
  /** The intervals keeping their time near the request (see `lanes`), by lane. */
  busy: Map<number, Spans>;
  /** The lanes with a hold past its expiry whose row still says it holds. */
  lapsed: Set<number>;
}

/**
 * The read of every booking, built and compiled once on `db` (Kysely's build-and-compile
 * costs more than SQLite's execution of it) and run in whatever executor the booking
 * uses: the type, its resources and lanes, each with its reservations near the requested
 * time aggregated into one column, so a booking reads what it books and what is taken in
 * one round trip. How near comes from the type's row in the same statement (its buffer and
 * longest reservation), so the type and the reservations are read at one instant.
 */
export function createBookingReads(db: Kysely<Database>, dialect: Dialect) {
  const type = prefixedTypeColumns('type');
  const typeMinutes = (column: 'bufferTime' | 'longestReservationMinutes') =>
    sql.ref<number>(`resourceTypes.${column}`);
  const buffer = typeMinutes('bufferTime');
  const selectTypeWithLanes = precompiled(() =>
    db
      .selectFrom('resourceTypes')
      .leftJoin('resources', (join) =>
        join
          .onRef('resources.organisationId', '=', 'resourceTypes.organisationId')
          .onRef('resources.resourceTypeId', '=', 'resourceTypes.id'),
      )
      .select(type.select())
      .selectAll('resources')
      .select((eb) =>
        eb
          .selectFrom('reservations')
          .select(aggregatedTimes(dialect, 'reservations').as('times'))
          .whereRef('reservations.resourceId', '=', 'resources.id')
          // Started within the type's longest reservation before the buffered request, so
          // the index range is bounded at both ends; ends within the buffered request.
          .where(
            'reservations.startTime',
            '>',
            minutesAfter(
              dialect,
              '',
              sql<number>`-(${buffer} + ${typeMinutes('longestReservationMinutes')})`,
            ),
          )
          .where('reservations.startTime', '<', minutesAfter(dialect, '', sql<number>`${buffer}`))
          .where('reservations.endTime', '>', minutesAfter(dialect, '', sql<number>`-${buffer}`))
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
      .where('resourceTypes.organisationId', '=', 0)
      .where('resourceTypes.id', '=', 0)
      .orderBy('resources.id'),
  );
  return {
    /**
     * The type `resourceTypeId` of the organisation (undefined for none), every resource and
     * lane of it, and on each the reservations keeping their time at `now` (ISO) that reach
     * within the type's buffer of `request`. None is longer than the type's longest
     * reservation, which bounds how far back the read looks.
     */
    async lanes(
      executor: Executor,
      organisationId: number,
      resourceTypeId: number,
      request: Interval,
      now: string,
    ): Promise<BookingRead | undefined> {
      const start = new Date(request.start).toISOString();
      // Parameters in the order the SQL holds them: the subqueries in the select list first.
      const rows = await selectTypeWithLanes(
        executor,
        start,
        new Date(request.end).toISOString(),
        start,
        now,
        now,
        organisationId,
        resourceTypeId,
      );
      if (rows.length === 0) return undefined;
      const busy = new Map<number, Spans>();
      const lapsed = new Set<number>();
      const catalogue: CatalogueRow[] = [];
      for (const row of rows) {
        // A type without resources answers one row, its lane columns null.
        if (row.id === null) continue;
        catalogue.push(row as CatalogueRow);
        if (row.busy) busy.set(row.id, spansOf(row.busy));
        if (row.lapsed) lapsed.add(row.id);
      }
      return { type: type.read(rows[0]!), catalogue, busy, lapsed };
    },
  };
}
