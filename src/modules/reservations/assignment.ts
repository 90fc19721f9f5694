import { sql } from 'kysely';
import { DateTime } from 'luxon';
import type { Dialect, Executor } from '../../db/database.js';
import type { AssignmentStrategy } from '../resource-types/tables.js';
import type { LaneOffer, LaneRead } from './context.js';
import { keepsTimeAt } from './reservation-time.js';
import { underSessionLock } from './session-lock.js';

/** A lane a pool booking may take, in the order it tries them, with why it would be that one. */
export interface RankedOffer {
  offer: LaneOffer;
  assignment: { strategy: AssignmentStrategy; reason: string } | null;
}

/** How far back round robin counts a lane's bookings. */
const ROUND_ROBIN_DAYS = 30;

/** The first key of the per-type advisory locks round robin and daily caps take (the second is the type id): "asgn". */
const ASSIGNMENT_LOCKS = 0x6173676e;

/** Per lane: its bookings that count, and when it was last booked (ISO; null for never). */
type LaneCounts = Map<number, { count: number; last: string | null }>;

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
    const since = new Date(Date.parse(booking.now) - ROUND_ROBIN_DAYS * 86_400_000).toISOString();
    const counts = await countBookings(executor, laneIds, booking.now, true, (q) =>
      q.where('resourceTypeId', '=', read.type.id).where('createdAt', '>=', since),
    );
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
  const counts = await countBookings(executor, laneIds, booking.now, false, (q) =>
    q
      .where('startTime', '>=', day.toUTC().toISO()!)
      .where('startTime', '<', day.plus({ days: 1 }).toUTC().toISO()!),
  );
  const count = (id: number) => counts.get(id)?.count ?? 0;
  return [...offers]
    .sort((a, b) => count(a.laneId) - count(b.laneId))
    .map((offer) => {
      const reason = `fewest bookings that day (${count(offer.laneId)})`;
      return { offer, assignment: { strategy, reason } };
    });
}

/**
 * The bookings keeping their time at `now` on each of `laneIds` that `where` keeps, counted,
 * and with `latest` when the latest was made (else `last` is null). Each read is a range of
 * one lane index whose entries hold every column it reads, so it never touches the table:
 * round robin's (type, made since) of `reservations_lane_made_idx` (migration 0069), least
 * busy day's (start time) of `reservations_lane_time_idx`, which holds no `created_at`.
 */
async function countBookings(
  executor: Executor,
  laneIds: number[],
  now: string,
  latest: boolean,
  where: (query: BookingsQuery) => BookingsQuery,
): Promise<LaneCounts> {
  const rows = await where(bookingsOn(executor, laneIds, now))
    .select((eb) => ['resourceId', eb.fn.countAll<number>().as('count')])
    .$if(latest, (q) => q.select((eb) => eb.fn.max('createdAt').as('last')))
    .groupBy('resourceId')
    .execute();
  return new Map(rows.map((row) => [row.resourceId!, { count: Number(row.count), last: row.last ?? null }]));
}

type BookingsQuery = ReturnType<typeof bookingsOn>;
const bookingsOn = (executor: Executor, laneIds: number[], now: string) =>
  executor.selectFrom('reservations').where('resourceId', 'in', laneIds).where(keepsTimeAt(now));
