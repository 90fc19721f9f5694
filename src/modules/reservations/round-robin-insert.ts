import { type Selectable, sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { turnGroups } from '../../db/turn-groups.js';
import { bookedColumns } from './bookings-repo.js';
import type { LaneOffer, LaneRead } from './context.js';
import { LANE_REFUSED } from './lanes-repo.js';
import { newReference } from './reference.js';
import type { NewReservation } from './repo.js';
import { toReservation } from './reservation-row.js';
import { ASSIGNMENT_LOCKS, ROUND_ROBIN_DAYS, windowAt } from './round-robin-counts.js';
import type { Reservation } from './schemas.js';
import type { ReservationsTable } from './tables.js';

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
 * A round-robin pool booking in one autocommitted statement (PostgreSQL): the function of
 * migration 0080 takes the type's turn (`reservations_round_robin_counts`, migration 0070, the
 * transaction-scoped lock the round-robin bookings before it held until their commits), counts
 * every lane of `offers` with a snapshot taken once the turn is its own, and inserts on the one
 * round robin ranks first (the fewest per weight, then booked longest ago, then as offered;
 * `rankOffers` ranks alike) while that lane's row is as read. The turn ends with the statement's
 * commit: no round trip to the server runs inside it. Undefined when the lane was taken or
 * changed meanwhile: the caller books in turn as any counting booking does.
 *
 * Each turn waits for the commit before it (a WAL flush), so the picks of a type that arrive
 * while one of this instance's is on its way wait for it, then go together (`turnGroups`): one
 * statement books them in order of arrival, each seeing the ones before it.
 */
export function createRoundRobinPick(db: Executor) {
  const pick = pickStatement(db);

  /** The picks of `members` in one statement, each with a reference drawn; one answer a member, in order. */
  async function picks(executor: Executor, members: PickMember[]): Promise<(Reservation | undefined)[]> {
    const drawn = members.map((member) => ({ ...member, row: { ...member.row, reference: newReference() } }));
    const { rows } = await pick(executor, ASSIGNMENT_LOCKS, JSON.stringify(drawn));
    return rows.map((row) => (row.id === null ? undefined : toReservation(row)));
  }

  /** One pick in its statement; a reference already given in the organisation is drawn again. */
  async function pickOnce(executor: Executor, member: PickMember): Promise<Reservation | undefined> {
    for (let draw = 1; ; draw++) {
      try {
        const [picked] = await picks(executor, [member]);
        return picked;
      } catch (error) {
        if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
        if (!(draw < REFERENCE_DRAWS && isUniqueViolation(error))) throw error;
      }
    }
  }

  // Per type: the picks arriving while one of this instance's is on its way go together.
  const turns = turnGroups(
    (member: PickMember) => pickOnce(db, member),
    (_typeId: number, members: PickMember[]) => picks(db, members),
  );

  return {
    insertPickedInTurn(
      executor: Executor,
      read: LaneRead,
      offers: LaneOffer[],
      values: Omit<NewReservation, 'resourceId' | 'blockedUntil'>,
      now: string,
    ): Promise<Reservation | undefined> {
      const member = pickMember(read, offers, values, now);
      if (executor.isTransaction) return pickOnce(executor, member);
      return turns.write(values.resourceTypeId, member);
    },
  };
}

export type RoundRobinPickRepo = ReturnType<typeof createRoundRobinPick>;

/** One booking of a pick, as migration 0080's function takes it (its reference drawn at each try). */
interface PickMember {
  row: Record<string, unknown>;
  lanes: { lane_id: number; lane_updated_at: string; blocked_until: string; weight: number }[];
  since: string;
  reason: string;
}

/** A booking of `values` on one of `offers`, as the pick function takes it. */
function pickMember(
  read: LaneRead,
  offers: LaneOffer[],
  values: Omit<NewReservation, 'resourceId' | 'blockedUntil'>,
  now: string,
): PickMember {
  const weights = new Map(read.catalogue.map((row) => [row.id, row.assignmentWeight]));
  return {
    row: {
      organisation_id: values.organisationId,
      resource_type_id: values.resourceTypeId,
      status: values.status,
      start_time: values.startTime,
      end_time: values.endTime,
      ...bookedColumns(values),
      created_at: now,
      updated_at: now,
    },
    lanes: offers.map((offer) => ({
      lane_id: offer.laneId,
      lane_updated_at: offer.laneUpdatedAt,
      blocked_until: new Date(offer.blockedUntil).toISOString(),
      weight: weights.get(offer.laneId) ?? 1,
    })),
    since: windowAt(now).since,
    reason: `fewest bookings in the last ${ROUND_ROBIN_DAYS} days (`,
  };
}

/**
 * The pick function's call, compiled once. Spelled `with ... select` rather than a lone
 * `select`, which the read-replica routing takes for a read (src/db/read-replica.ts): it writes.
 */
function pickStatement(db: Executor) {
  return compiledOnce(() => {
    const p = [null, null] as unknown[];
    const query = sql<Selectable<ReservationsTable>>`with picked as (
        select * from reservations_round_robin_pick(${p[0]}, ${p[1]}::jsonb) with ordinality)
      select * from picked order by ordinality`;
    return { compile: () => query.compile(db) };
  });
}
