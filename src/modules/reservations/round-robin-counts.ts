import { sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor, inTransaction } from '../../db/database.js';
import { KEEPING_STATUSES, keepsTimeAt } from './reservation-time.js';

/** How far back round robin counts a lane's bookings. */
export const ROUND_ROBIN_DAYS = 30;

/** The first key of the per-type advisory locks round robin and daily caps take (the second is the type id): "asgn". */
export const ASSIGNMENT_LOCKS = 0x6173676e;

/** Per lane: its bookings that count, and when it was last booked (ISO; null for never). */
export type LaneCounts = Map<number, { count: number; last: string | null }>;

/** Round robin's window at `now`: since when bookings count, that day (UTC, YYYY-MM-DD), and the next day's start. */
export function windowAt(now: string): { since: string; firstDay: string; secondDay: string } {
  const since = new Date(Date.parse(now) - ROUND_ROBIN_DAYS * 86_400_000);
  const secondDay = new Date(since);
  secondDay.setUTCHours(24, 0, 0, 0);
  return {
    since: since.toISOString(),
    firstDay: since.toISOString().slice(0, 10),
    secondDay: secondDay.toISOString(),
  };
}

/**
 * Round robin's count (DECISIONS.md "Teams"): per lane of `laneIds`, the bookings of type
 * `typeId` keeping their time at `now` made in the last 30 days, and when the latest was made.
 * Not row by row: the whole days of the window from `reservation_lane_days` (migration 0070,
 * the rows keeping their time for good), the window's first day and the rows whose expiry is
 * still ahead from the lane indexes, the latest by one backward step of the made index.
 * PostgreSQL answers it with the function a pool booking's insert picks its lane with; SQLite
 * with one statement of the same shape. Both compiled once (Kysely's building and running of
 * a statement cost SQLite's booking more than the statement's own 30 µs).
 */
export function createRoundRobinCounts(db: Executor, dialect: Dialect) {
  const count = dialect === 'postgres' ? pgCountStatement(db) : sqliteCountStatement(db);
  return {
    async roundRobinCounts(
      executor: Executor,
      typeId: number,
      laneIds: number[],
      now: string,
    ): Promise<LaneCounts> {
      const { since, firstDay, secondDay } = windowAt(now);
      const parameters =
        dialect === 'postgres'
          ? [ASSIGNMENT_LOCKS, typeId, laneIds, since, now]
          : [
              typeId,
              firstDay,
              typeId,
              since,
              secondDay,
              now,
              typeId,
              since,
              typeId,
              since,
              now,
              JSON.stringify(laneIds),
            ];
      const { rows } = await count(executor, ...parameters);
      return new Map(
        rows.map((row) => [Number(row.laneId), { count: Number(row.bookings), last: row.lastMade }]),
      );
    },
    /**
     * Deletes up to `limit` counter rows of days before `day` (YYYY-MM-DD, UTC); answers how
     * many went. Batched so SQLite's one connection is never held for long.
     */
    async pruneLaneDays(day: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('reservationLaneDays')
        .where((eb) =>
          eb(
            eb.refTuple('resourceId', 'resourceTypeId', 'day', 'writer'),
            'in',
            eb
              .selectFrom('reservationLaneDays')
              .select(['resourceId', 'resourceTypeId', 'day', 'writer'])
              .where('day', '<', day)
              .limit(limit)
              .$asTuple('resourceId', 'resourceTypeId', 'day', 'writer'),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /**
     * PostgreSQL: folds up to `limit` per-writer counter rows of days before `day` into one row
     * per lane, type and day (writer 0), keeping the sum; answers how many rows went (0 on
     * SQLite, whose writer is always 0). Triggers still write such days (a cancel, a move), so
     * the rows are locked first, skipping any a transaction holds: the merge never waits for a
     * booking's transaction, so it cannot deadlock with one; a transaction that then writes a
     * locked row waits for this commit and, the row gone, inserts its own anew. Only merges
     * write writer 0, in key order.
     */
    async mergeLaneDayWriters(day: string, limit: number): Promise<number> {
      if (dialect !== 'postgres') return 0;
      return inTransaction(db, async (trx) => {
        const locked = await trx
          .selectFrom('reservationLaneDays')
          .select(['resourceId', 'resourceTypeId', 'day', 'writer'])
          .where('day', '<', day)
          .where('writer', '<>', 0)
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        if (locked.length === 0) return 0;
        const gone = await trx
          .deleteFrom('reservationLaneDays')
          .where((eb) =>
            eb(
              eb.refTuple('resourceId', 'resourceTypeId', 'day', 'writer'),
              'in',
              locked.map((row) => eb.tuple(row.resourceId, row.resourceTypeId, row.day, row.writer)),
            ),
          )
          .returning(['resourceId', 'resourceTypeId', 'day', 'bookings'])
          .execute();
        const merged = dayTotals(gone).filter((row) => row.bookings !== 0);
        if (merged.length === 0) return gone.length;
        await trx
          .insertInto('reservationLaneDays')
          .values(merged.map((row) => ({ ...row, writer: 0 })))
          .onConflict((oc) =>
            oc.columns(['resourceId', 'resourceTypeId', 'day', 'writer']).doUpdateSet((eb) => ({
              bookings: eb('reservationLaneDays.bookings', '+', eb.ref('excluded.bookings')),
            })),
          )
          .execute();
        return gone.length;
      });
    },
  };
}

export type RoundRobinCounter = ReturnType<typeof createRoundRobinCounts>;

type DayTotal = { resourceId: number; resourceTypeId: number; day: string; bookings: number };

/** Counter rows summed per lane, type and day, in key order (the order merges lock writer 0 rows in). */
function dayTotals(rows: DayTotal[]): DayTotal[] {
  const sums = new Map<string, DayTotal>();
  for (const row of rows) {
    const key = `${row.resourceId}|${row.resourceTypeId}|${row.day}`;
    const sum = sums.get(key);
    sums.set(key, { ...row, bookings: (sum?.bookings ?? 0) + row.bookings });
  }
  return [...sums.values()].sort(
    (a, b) =>
      a.resourceId - b.resourceId || a.resourceTypeId - b.resourceTypeId || a.day.localeCompare(b.day),
  );
}

type CountRow = { laneId: number; bookings: number; lastMade: string | null };

/** PostgreSQL: the function of migration 0070, without taking the turn (the caller holds it, or ranks a dry run). */
function pgCountStatement(db: Executor) {
  return compiledOnce(() => {
    const p = Array.from({ length: 5 }, () => null as unknown);
    const query = sql<CountRow>`select lane_id, bookings, last_made from reservations_round_robin_counts(
      false, ${p[0]}, ${p[1]}, ${p[2]}::integer[], ${p[3]}, ${p[4]})`;
    return { compile: () => query.compile(db) };
  });
}

/**
 * SQLite: the function's reads in one statement, lane ids as a JSON array. The unary `+`
 * keeps the unexpired rows' count on `reservations_lane_expiry_idx` (a few rows) rather than
 * the made index (the whole window).
 */
function sqliteCountStatement(db: Executor) {
  return compiledOnce(() => {
    const p = Array.from({ length: 12 }, () => null as unknown);
    const keeping = sql.raw(KEEPING_STATUSES.map((status) => `'${status}'`).join(', '));
    const query = sql<CountRow>`
      select l.value as lane_id,
        coalesce((select sum(d.bookings) from reservation_lane_days d
           where d.resource_id = l.value and d.resource_type_id = ${p[0]} and d.day > ${p[1]}), 0)
        + (select count(*) from reservations r
           where r.resource_id = l.value and r.resource_type_id = ${p[2]} and r.created_at >= ${p[3]}
             and r.created_at < ${p[4]} and r.status in (${keeping}) and r.expires_at is null)
        + (select count(*) from reservations r
           where r.resource_id = l.value and r.expires_at > ${p[5]} and r.status in (${keeping})
             and +r.resource_type_id = ${p[6]} and +r.created_at >= ${p[7]}) as bookings,
        (select r.created_at from reservations r
           where r.resource_id = l.value and r.resource_type_id = ${p[8]} and r.created_at >= ${p[9]}
             and ${keepsTimeAt(p[10] as string, 'r')}
           order by r.created_at desc limit 1) as last_made
      from json_each(${p[11]}) l`;
    return { compile: () => query.compile(db) };
  });
}
