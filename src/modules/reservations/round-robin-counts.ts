import { sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor } from '../../db/database.js';
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
  };
}

export type RoundRobinCounter = ReturnType<typeof createRoundRobinCounts>;

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
