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
  const [days, firstDayRows, expiring] = await Promise.all([
    executor
      .selectFrom('reservationLaneDays')
      .select((eb) => ['resourceId', eb.fn.sum<number>('bookings').as('n')])
      .where('resourceId', 'in', laneIds)
      .where('resourceTypeId', '=', typeId)
      .where('day', '>', firstDay)
      .groupBy('resourceId')
      .execute(),
    executor
      .selectFrom('reservations')
      .select((eb) => ['resourceId', eb.fn.countAll<number>().as('n')])
      .where('resourceId', 'in', laneIds)
      .where('resourceTypeId', '=', typeId)
      .where('createdAt', '>=', since)
      .where('createdAt', '<', secondDay)
      .where('status', 'in', KEEPING_STATUSES)
      .where('expiresAt', 'is', null)
      .groupBy('resourceId')
      .execute(),
    // The few rows with an expiry still ahead, from `reservations_lane_expiry_idx`: the unary
    // `+` keeps SQLite from reading them through the made index, all the window's rows.
    executor
      .selectFrom('reservations')
      .select((eb) => ['resourceId', eb.fn.countAll<number>().as('n')])
      .where('resourceId', 'in', laneIds)
      .where('expiresAt', '>', now)
      .where('status', 'in', KEEPING_STATUSES)
      .where(sql`+${sql.ref('resourceTypeId')}`, '=', typeId)
      .where(sql`+${sql.ref('createdAt')}`, '>=', since)
      .groupBy('resourceId')
      .execute(),
  ]);
  const counts: LaneCounts = new Map(laneIds.map((id) => [id, { count: 0, last: null }]));
  for (const row of [...days, ...firstDayRows, ...expiring])
    counts.get(row.resourceId!)!.count += Number(row.n);
  for (const id of laneIds) {
    const latest = await executor
      .selectFrom('reservations')
      .select('createdAt')
      .where('resourceId', '=', id)
      .where('resourceTypeId', '=', typeId)
      .where('createdAt', '>=', since)
      .where(keepsTimeAt(now))
      .orderBy('createdAt', 'desc')
      .limit(1)
      .executeTakeFirst();
    counts.get(id)!.last = latest?.createdAt ?? null;
  }
  return counts;
}
