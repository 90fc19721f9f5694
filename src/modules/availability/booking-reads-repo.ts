import { type Kysely, sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import { minutesAfter } from '../../db/instants.js';
import type { Database } from '../../db/types.js';
import { lapsedReservationsAt, reservationsKeepingTimeAt } from '../reservations/ports.js';
import { resourceTypeRows } from '../resource-types/ports.js';
import { prefixedTypeColumns, type StoredResourceType } from '../resource-types/service.js';
import { resourceRows } from '../resources/ports.js';
import type { CatalogueRow } from './catalogue-repo.js';
import type { Interval } from './engine.js';
import type { Spans } from './spans.js';
import { aggregatedTimes, spansOf } from './stored-times.js';

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
  const selectTypeWithLanes = typeWithLanesStatement(db, dialect, type);
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
      // Parameters in the order the SQL holds them: the subqueries in the select list first, each
      // the reservations' clock (in its FROM) before the request's bounds.
      const rows = await selectTypeWithLanes(
        executor,
        now,
        start,
        new Date(request.end).toISOString(),
        start,
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

/**
 * The times of the reservations keeping their time on the lane `resources` (a row of the
 * consumer's statement, of the type `resourceTypes`) that reach within the type's buffer of
 * a request, aggregated (`aggregatedTimes`). Parameters: the reservations' clock, then the
 * request's start, end and start (ISO). Started within the type's longest reservation before
 * the buffered request, so the index range is bounded at both ends; ends within the buffered request.
 */
export function keptTimesNear(db: Kysely<Database>, dialect: Dialect) {
  const typeMinutes = (column: 'bufferTime' | 'longestReservationMinutes') =>
    sql.ref<number>(`resourceTypes.${column}`);
  const buffer = typeMinutes('bufferTime');
  return db
    .selectFrom(reservationsKeepingTimeAt(db, '').as('kept'))
    .select(aggregatedTimes(dialect, 'kept').as('times'))
    .where('kept.resourceId', '=', sql.ref<number>('resources.id'))
    .where(
      'kept.startTime',
      '>',
      minutesAfter(dialect, '', sql<number>`-(${buffer} + ${typeMinutes('longestReservationMinutes')})`),
    )
    .where('kept.startTime', '<', minutesAfter(dialect, '', sql<number>`${buffer}`))
    .where('kept.endTime', '>', minutesAfter(dialect, '', sql<number>`-${buffer}`));
}

/** The statement of `createBookingReads`, compiled on its first run: parameters as `lanes` passes them. */
function typeWithLanesStatement(
  db: Kysely<Database>,
  dialect: Dialect,
  type: ReturnType<typeof prefixedTypeColumns>,
) {
  return precompiled(() =>
    db
      .selectFrom(resourceTypeRows(db).as('resourceTypes'))
      .leftJoin(resourceRows(db).as('resources'), (join) =>
        join
          .onRef('resources.organisationId', '=', 'resourceTypes.organisationId')
          .onRef('resources.resourceTypeId', '=', 'resourceTypes.id'),
      )
      .select(type.select())
      .selectAll('resources')
      .select(keptTimesNear(db, dialect).as('busy'))
      // Whether a hold on the lane has lapsed unmarked: a probe of the partial index of held and
      // unpaid rows (reservations migration 0077), the plan even before the table has statistics.
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom(lapsedReservationsAt(db, '').as('lapsed'))
              .select(sql.lit(1).as('one'))
              .whereRef('lapsed.resourceId', '=', 'resources.id'),
          )
          .as('lapsed'),
      )
      .where('resourceTypes.organisationId', '=', 0)
      .where('resourceTypes.id', '=', 0)
      .orderBy('resources.id'),
  );
}
