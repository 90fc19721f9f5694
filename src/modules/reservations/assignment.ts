import { sql } from 'kysely';
import { DateTime } from 'luxon';
import type { Dialect, Executor } from '../../db/database.js';
import type { AssignmentStrategy } from '../resource-types/tables.js';
import type { LaneOffer, LaneRead } from './context.js';
import { keepsTimeAt } from './reservation-time.js';
import {
  ASSIGNMENT_LOCKS,
  type LaneCounts,
  ROUND_ROBIN_DAYS,
  type RoundRobinCounter,
} from './round-robin-counts.js';
import { underSessionLock } from './session-lock.js';

/** A lane a pool booking may take, in the order it tries them, with why it would be that one. */
export interface RankedOffer {
  offer: LaneOffer;
  assignment: { strategy: AssignmentStrategy; reason: string } | null;
}

/**
 * Whether a booking of `read`'s type must pick its lane one booking at a time: its strategy
 * counts bookings, or a lane has a daily cap. Each counts what the ones before it committed;
 * first-free bookings of uncapped lanes keep booking side by side.
 */
export function picksInTurn(read: LaneRead, pooled: boolean): boolean {
  return (
    (pooled && read.type.assignment !== 'first_free') ||
    read.catalogue.some((row) => row.maxBookingsPerDay !== null)
  );
}

/**
 * Runs `work` while no other booking of the type picks its lane (`underSessionLock`): the
 * lock is released after the work's autocommitted insert, so the next booking counts it.
 */
export function oneAtATime<T>(
  executor: Executor,
  dialect: Dialect,
  resourceTypeId: number,
  work: (executor: Executor) => Promise<T>,
): Promise<T> {
  return underSessionLock(executor, dialect, sql`${sql.lit(ASSIGNMENT_LOCKS)}, ${resourceTypeId}::int`, work);
}

/**
 * Takes, for the rest of `transaction`, the turn of each of `resourceTypeIds` (ascending, so
 * two writers never wait on each other in a circle): a collective booking or series counting a
 * capped lane's day waits for the bookings of those types before it, and they for it, until it
 * commits. SQLite's transactions already run one at a time.
 */
export async function typesInTurn(
  transaction: Executor,
  dialect: Dialect,
  resourceTypeIds: readonly number[],
): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const id of [...new Set(resourceTypeIds)].sort((a, b) => a - b))
    await sql`select pg_advisory_xact_lock(${sql.lit(ASSIGNMENT_LOCKS)}, ${id}::int)`.execute(transaction);
}

/**
 * `offers` in the order a booking tries them, each with its assignment: by the type's
 * strategy for a pool booking (DECISIONS.md "Teams"), as offered (with no assignment) for a
 * booking of a named resource. Round robin: the fewest bookings of the type in the last 30
 * days per unit of weight, ties to the lane booked longest ago, then the offered order;
 * least busy day: the fewest bookings starting that organisation-local day, ties in the
 * offered order. Bookings that count are those keeping their time (confirmed, and holds
 * and unpaid ones not yet lapsed).
 */
export async function rankOffers(
  executor: Executor,
  counter: RoundRobinCounter,
  read: LaneRead,
  offers: LaneOffer[],
  booking: { pooled: boolean; start: number; timezone: string; now: string },
): Promise<RankedOffer[]> {
  const strategy = read.type.assignment;
  if (!booking.pooled) return offers.map((offer) => ({ offer, assignment: null }));
  if (strategy === 'first_free' || offers.length === 0) {
    const reason = 'the first free resource of the pool';
    return offers.map((offer) => ({ offer, assignment: { strategy, reason } }));
  }
  const laneIds = offers.map((offer) => offer.laneId);
  if (strategy === 'round_robin') {
    const weights = new Map(read.catalogue.map((row) => [row.id, row.assignmentWeight]));
    const counts = await counter.roundRobinCounts(executor, read.type.id, laneIds, booking.now);
    const share = (id: number) => (counts.get(id)?.count ?? 0) / (weights.get(id) ?? 1);
    const last = (id: number) => counts.get(id)?.last ?? '';
    return [...offers]
      .sort((a, b) => share(a.laneId) - share(b.laneId) || last(a.laneId).localeCompare(last(b.laneId)))
      .map((offer) => {
        const count = counts.get(offer.laneId)?.count ?? 0;
        const reason = `fewest bookings in the last ${ROUND_ROBIN_DAYS} days (${count}, weight ${weights.get(offer.laneId) ?? 1})`;
        return { offer, assignment: { strategy, reason } };
      });
  }
  const day = DateTime.fromMillis(booking.start, { zone: booking.timezone }).startOf('day');
  const counts = await countDay(executor, laneIds, booking.now, day);
  const count = (id: number) => counts.get(id)?.count ?? 0;
  return [...offers]
    .sort((a, b) => count(a.laneId) - count(b.laneId))
    .map((offer) => {
      const reason = `fewest bookings that day (${count(offer.laneId)})`;
      return { offer, assignment: { strategy, reason } };
    });
}

/**
 * Least busy day's count: per lane of `laneIds`, the bookings keeping their time at `now`
 * that start on `day` (organisation-local), a range of `reservations_lane_time_idx` whose
 * entries hold every column it reads, so it never touches the table.
 */
async function countDay(
  executor: Executor,
  laneIds: number[],
  now: string,
  day: DateTime,
): Promise<LaneCounts> {
  const rows = await executor
    .selectFrom('reservations')
    .where('resourceId', 'in', laneIds)
    .where(keepsTimeAt(now))
    .where('startTime', '>=', day.toUTC().toISO()!)
    .where('startTime', '<', day.plus({ days: 1 }).toUTC().toISO()!)
    .select((eb) => ['resourceId', eb.fn.countAll<number>().as('count')])
    .groupBy('resourceId')
    .execute();
  return new Map(rows.map((row) => [row.resourceId!, { count: Number(row.count), last: null }]));
}
