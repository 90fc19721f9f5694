import { type Kysely, sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import { reservationsKeepingTimeAt } from '../reservations/ports.js';
import { resourceTypeRows } from '../resource-types/ports.js';
import { prefixedTypeColumns, type StoredResourceType } from '../resource-types/service.js';
import { resourceRows } from '../resources/ports.js';
import { keptTimesNear } from './booking-reads-repo.js';
import type { CatalogueRow } from './catalogue-repo.js';
import type { Interval } from './engine.js';
import { NO_SPANS, type Spans } from './spans.js';
import { spansOf } from './stored-times.js';

/** A reservation taking a lane's time, as an explanation names it: its kind, never its customer. */
export interface TakenTime {
  id: number;
  laneId: number;
  held: boolean;
  start: number;
  end: number;
}

/** What takes one lane's time near a request, by kind: bookings (and payments pending) and holds. */
export interface LaneTaken {
  booked: Spans;
  held: Spans;
}

/**
 * The reservations keeping their time at `nowMs` on these lanes that overlap `range`, one
 * row each (an explanation covers a request, not a month: few rows, and their status tells
 * a hold from a booking). As availability's read, none is longer than `lookbackMs`.
 */
export async function takenTimes(
  db: Executor,
  laneIds: readonly number[],
  range: Interval,
  lookbackMs: number,
  nowMs: number,
): Promise<TakenTime[]> {
  if (laneIds.length === 0) return [];
  const rows = await db
    .selectFrom(reservationsKeepingTimeAt(db, new Date(nowMs).toISOString()).as('kept'))
    .select(['kept.id', 'kept.resourceId', 'kept.status', 'kept.startTime', 'kept.endTime'])
    .where('kept.resourceId', 'in', [...laneIds])
    .where('kept.startTime', '>', new Date(range.start - lookbackMs).toISOString())
    .where('kept.startTime', '<', new Date(range.end).toISOString())
    .where('kept.endTime', '>', new Date(range.start).toISOString())
    .orderBy('kept.startTime')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    laneId: row.resourceId!,
    held: row.status === 'held',
    start: Date.parse(row.startTime),
    end: Date.parse(row.endTime),
  }));
}

/** What explaining one resource or lane reads in one statement. */
export interface ExplainRead {
  /** The type of the resource's family (its parent's for a lane). */
  type: StoredResourceType;
  /**
   * The rows the answer counts, parent first, lanes in order: a resource with its lanes, or
   * a lane with its parent (not its siblings: an answer about a lane counts that lane only).
   */
  family: CatalogueRow[];
  /** On each row, what takes its time within the type's buffer of the request. */
  taken: Map<number, LaneTaken>;
}

/**
 * The read of an explanation of one resource or lane, built and compiled once on `db` (see
 * booking-reads-repo.ts, whose style it follows): the family's rows, their type, and on each
 * row the bookings and holds keeping their time at the request's instant that reach within
 * the type's buffer of it, aggregated per kind, so an explanation reads in one round trip.
 */
export function createExplainReads(db: Kysely<Database>, dialect: Dialect) {
  const type = prefixedTypeColumns('type');
  const selectFamily = familyStatement(db, dialect, type);
  return {
    /** The resource `resourceId` of the organisation, as `ExplainRead` says; undefined for none (or no type). */
    async family(
      organisationId: number,
      resourceId: number,
      request: Interval,
      nowMs: number,
    ): Promise<ExplainRead | undefined> {
      const now = new Date(nowMs).toISOString();
      const start = new Date(request.start).toISOString();
      const end = new Date(request.end).toISOString();
      // Parameters in the order the SQL holds them: each subquery's clock (in its FROM), then the request's bounds.
      const rows = await selectFamily(
        db,
        now,
        start,
        end,
        start,
        now,
        start,
        end,
        start,
        organisationId,
        resourceId,
      );
      if (rows.length === 0) return undefined;
      const taken = new Map<number, LaneTaken>();
      for (const row of rows) {
        if (row.booked || row.held)
          taken.set(row.id, {
            booked: row.booked ? spansOf(row.booked) : NO_SPANS,
            held: row.held ? spansOf(row.held) : NO_SPANS,
          });
      }
      // Parent first (no lane index), then the lanes by index: as the catalogue's `family` orders them.
      const family = (rows as CatalogueRow[]).sort(
        (a, b) => (a.capacityLaneIndex ?? 0) - (b.capacityLaneIndex ?? 0),
      );
      return { type: type.read(rows[0]!), family, taken };
    },
  };
}

/** The statement of `createExplainReads`, compiled on its first run: parameters as `family` passes them. */
function familyStatement(
  db: Kysely<Database>,
  dialect: Dialect,
  type: ReturnType<typeof prefixedTypeColumns>,
) {
  // The reservations of one kind on the row, near the request.
  const times = (held: boolean) =>
    keptTimesNear(db, dialect).where('kept.status', held ? '=' : '<>', sql.lit('held'));
  return precompiled(() =>
    db
      .selectFrom(resourceRows(db).as('target'))
      .innerJoin(resourceRows(db).as('resources'), (join) =>
        join
          .onRef('resources.organisationId', '=', 'target.organisationId')
          .on((eb) =>
            eb.or([
              eb('resources.id', '=', eb.ref('target.id')),
              eb('resources.id', '=', eb.ref('target.parentResourceId')),
              eb('resources.parentResourceId', '=', eb.ref('target.id')),
            ]),
          ),
      )
      // The family's type is its parent's (a lane's parent, or the resource itself).
      .innerJoin(resourceRows(db).as('parent'), (join) =>
        join.on((eb) => eb('parent.id', '=', eb.fn.coalesce('target.parentResourceId', 'target.id'))),
      )
      .innerJoin(resourceTypeRows(db).as('resourceTypes'), (join) =>
        join
          .onRef('resourceTypes.organisationId', '=', 'target.organisationId')
          .onRef('resourceTypes.id', '=', 'parent.resourceTypeId'),
      )
      .select(type.select())
      .selectAll('resources')
      .select(times(false).as('booked'))
      .select(times(true).as('held'))
      .where('target.organisationId', '=', 0)
      .where('target.id', '=', 0),
  );
}
