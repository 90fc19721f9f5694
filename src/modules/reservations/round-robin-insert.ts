import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { laneAsReadAt } from '../resources/ports.js';
import { storedCustomerInfo } from './answers.js';
import type { LaneOffer, LaneRead } from './context.js';
import { LANE_REFUSED } from './lanes-repo.js';
import { newReference } from './reference.js';
import type { NewReservation } from './repo.js';
import { toReservation } from './reservation-row.js';
import { ASSIGNMENT_LOCKS, ROUND_ROBIN_DAYS, windowAt } from './round-robin-counts.js';
import type { Reservation } from './schemas.js';

/** Times the pick draws a reference when the one drawn is already given in the organisation. */
const REFERENCE_DRAWS = 3;

/**
 * Whether a booking of `read`'s type picks its lane in its insert (`insertPickedInTurn`):
 * a round-robin pool booking on PostgreSQL, outside a transaction, with no capped lane (a cap
 * counts the day in the booking's own reads, in turn: `oneAtATime`).
 */
export function picksInInsert(
  dialect: Dialect,
  executor: Executor,
  read: LaneRead,
  pooled: boolean,
): boolean {
  return (
    dialect === 'postgres' &&
    !executor.isTransaction &&
    pooled &&
    read.type.assignment === 'round_robin' &&
    !read.catalogue.some((row) => row.maxBookingsPerDay !== null)
  );
}

/**
 * A round-robin pool booking in one autocommitted statement (PostgreSQL): it takes the type's
 * turn (`reservations_round_robin_counts`, migration 0070, the transaction-scoped lock the
 * round-robin bookings before it held until their commits), counts every lane of `offers` with
 * a snapshot taken once the turn is its own, and inserts on the one round robin ranks first
 * (the fewest per weight, then booked longest ago, then as offered; `rankOffers` ranks alike)
 * while that lane's row is as read. The turn ends with the statement's commit: no round trip
 * to the server runs inside it. Undefined when the lane was taken or changed meanwhile: the
 * caller books in turn as any counting booking does.
 */
export async function insertPickedInTurn(
  executor: Executor,
  read: LaneRead,
  offers: LaneOffer[],
  values: Omit<NewReservation, 'resourceId' | 'blockedUntil'>,
  now: string,
): Promise<Reservation | undefined> {
  const weights = new Map(read.catalogue.map((row) => [row.id, row.assignmentWeight]));
  const laneIds = offers.map((offer) => offer.laneId);
  const { since } = windowAt(now);
  const { name, email, phone } = values.customer;
  for (let draw = 1; ; draw++) {
    const guard = laneAsReadAt(executor, sql.ref('o.lane_id'), sql.ref('o.lane_updated_at'))
      .select(sql.lit(1).as('one'))
      .forShare();
    const reason = `fewest bookings in the last ${ROUND_ROBIN_DAYS} days (`;
    try {
      const { rows } = await sql<Record<string, unknown>>`
        insert into reservations (organisation_id, resource_type_id, resource_id, status, start_time, end_time,
          blocked_until, customer_name, customer_email, customer_phone, customer_info, notes, price_amount,
          price_currency, source, created_by_user_id, rules_overridden_by_user_id, expires_at, manage_token_hash,
          manage_token_sealed, public_client_hash, series_id, assignment_strategy, assignment_reason, resource_ids,
          part_of, reference, created_at, updated_at)
        select ${values.organisationId}, ${values.resourceTypeId}, o.lane_id, ${values.status}, ${values.startTime},
          ${values.endTime}, o.blocked_until, ${name}, ${email}, ${phone ?? null}, ${storedCustomerInfo(values.customer)},
          ${values.notes}, ${values.priceAmount}, ${values.priceCurrency}, ${values.source}, ${values.createdByUserId},
          ${values.rulesOverriddenByUserId}, ${values.expiresAt}, ${values.manageTokenHash ?? null},
          ${values.manageTokenSealed ?? null}, ${values.publicClientHash ?? null}, ${values.seriesId ?? null},
          'round_robin', ${reason}::text || c.bookings || ', weight ' || o.weight || ')', null, null,
          ${newReference()}, ${now}, ${now}
        from unnest(${laneIds}::integer[], ${offers.map((o) => o.laneUpdatedAt)}::timestamptz[],
            ${offers.map((o) => new Date(o.blockedUntil).toISOString())}::timestamptz[],
            ${laneIds.map((id) => weights.get(id) ?? 1)}::integer[])
          with ordinality as o(lane_id, lane_updated_at, blocked_until, weight, n)
        join reservations_round_robin_counts(true, ${ASSIGNMENT_LOCKS}, ${values.resourceTypeId},
            ${laneIds}::integer[], ${since}, ${now}) c on c.lane_id = o.lane_id
        where exists (${guard})
        order by c.bookings::float8 / o.weight, c.last_made nulls first, o.n
        limit 1
        on conflict on constraint reservations_no_overlap do nothing
        returning *`.execute(executor);
      return rows[0] && toReservation(rows[0] as never);
    } catch (error) {
      if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
      if (!(draw < REFERENCE_DRAWS && isUniqueViolation(error))) throw error;
    }
  }
}
