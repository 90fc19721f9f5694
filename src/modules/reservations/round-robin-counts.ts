import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
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
 * PostgreSQL answers it with the function a pool booking's insert picks its lane with.
 */
export async function roundRobinCounts(
  executor: Executor,
  dialect: Dialect,
  typeId: number,
  laneIds: number[],
  now: string,
): Promise<LaneCounts> {
  const { since, firstDay, secondDay } = windowAt(now);
  if (dialect === 'postgres') {
    const { rows } = await sql<{ laneId: number; bookings: number; lastMade: string | null }>`
      select lane_id, bookings, last_made from reservations_round_robin_counts(
        false, ${ASSIGNMENT_LOCKS}, ${typeId}, ${laneIds}::integer[], ${since}, ${now})`.execute(executor);
    return new Map(rows.map((row) => [row.laneId, { count: Number(row.bookings), last: row.lastMade }]));
  }
  // SQLite: one statement, the function's shape (a statement built with Kysely a read costs
  // more than the read). Lane ids in a JSON array, each lane's reads by its indexes; the unary
  // `+` keeps the unexpired rows' count on `reservations_lane_expiry_idx` (a few rows) rather
  // than the made index (the whole window).
  const keeping = sql.raw(KEEPING_STATUSES.map((status) => `'${status}'`).join(', '));
  const { rows } = await sql<{ laneId: number; bookings: number; lastMade: string | null }>`
    select l.value as lane_id,
      coalesce((select sum(d.bookings) from reservation_lane_days d
         where d.resource_id = l.value and d.resource_type_id = ${typeId} and d.day > ${firstDay}), 0)
      + (select count(*) from reservations r
         where r.resource_id = l.value and r.resource_type_id = ${typeId} and r.created_at >= ${since}
           and r.created_at < ${secondDay} and r.status in (${keeping}) and r.expires_at is null)
      + (select count(*) from reservations r
         where r.resource_id = l.value and r.expires_at > ${now} and r.status in (${keeping})
           and +r.resource_type_id = ${typeId} and +r.created_at >= ${since}) as bookings,
      (select r.created_at from reservations r
         where r.resource_id = l.value and r.resource_type_id = ${typeId} and r.created_at >= ${since}
           and ${keepsTimeAt(now, 'r')}
         order by r.created_at desc limit 1) as last_made
    from json_each(${JSON.stringify(laneIds)}) l`.execute(executor);
  const counts: LaneCounts = new Map(
    rows.map((row) => [Number(row.laneId), { count: Number(row.bookings), last: row.lastMade }]),
  );
  return counts;
}
