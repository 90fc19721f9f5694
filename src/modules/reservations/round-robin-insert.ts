import { type Selectable, sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { laneAsReadAt } from '../resources/ports.js';
import { bookedValues } from './bookings-repo.js';
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
 * A round-robin pool booking in one autocommitted statement (PostgreSQL): it takes the type's
 * turn (`reservations_round_robin_counts`, migration 0070, the transaction-scoped lock the
 * round-robin bookings before it held until their commits), counts every lane of `offers` with
 * a snapshot taken once the turn is its own, and inserts on the one round robin ranks first
 * (the fewest per weight, then booked longest ago, then as offered; `rankOffers` ranks alike)
 * while that lane's row is as read. The turn ends with the statement's commit: no round trip
 * to the server runs inside it. Undefined when the lane was taken or changed meanwhile: the
 * caller books in turn as any counting booking does.
 *
 * Each turn waits for the commit before it (a WAL flush), so the picks of a type that arrive
 * while one of this instance's is on its way wait for it, then go together: one transaction,
 * their statements in order of arrival (each sees the ones before it), one turn and one flush
 * for all of them (`pickWaiting`).
 */
export function createRoundRobinPick(db: Executor) {
  const pick = pickStatement(db);
  /** Per type: the picks that arrived while one of this instance's was on its way. */
  const waiting = new Map<number, WaitingPick[]>();

  /** One pick in its statement; a reference already given in the organisation is drawn again. */
  async function pickOnce(executor: Executor, parameters: PickParameters): Promise<Reservation | undefined> {
    for (let draw = 1; ; draw++) {
      try {
        const { rows } = await pick(executor, ...parameters(newReference()));
        return rows[0] && toReservation(rows[0]);
      } catch (error) {
        if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
        if (!(draw < REFERENCE_DRAWS && isUniqueViolation(error))) throw error;
      }
    }
  }

  /** A pick inside a group's transaction: a failing statement ends the group (`PickInGroupFailed`). */
  async function pickInGroup(trx: Executor, parameters: PickParameters): Promise<Reservation | undefined> {
    try {
      const { rows } = await pick(trx, ...parameters(newReference()));
      return rows[0] && toReservation(rows[0]);
    } catch (error) {
      throw new PickInGroupFailed(error);
    }
  }

  /** The waiting picks of the type, group after group, until none arrived during the last. */
  async function pickWaiting(typeId: number): Promise<void> {
    for (let group = waiting.get(typeId) ?? []; group.length > 0; group = waiting.get(typeId) ?? []) {
      waiting.set(typeId, []);
      await pickGroup(group);
    }
    waiting.delete(typeId);
  }

  /**
   * A group's picks in one transaction. When a pick's statement fails (a refusal, or a drawn
   * reference already given) the group is rolled back and each picks alone, as it would have
   * without the group; a failing `begin` or `commit` fails them all (a commit whose answer was
   * lost may have committed: picking again could book twice).
   */
  async function pickGroup(group: WaitingPick[]): Promise<void> {
    let picked: (Reservation | undefined)[];
    try {
      picked = await inTransaction(db, async (trx) => {
        const rows: (Reservation | undefined)[] = [];
        for (const member of group) rows.push(await pickInGroup(trx, member.parameters));
        return rows;
      });
    } catch (error) {
      for (const member of group) {
        if (error instanceof PickInGroupFailed)
          await pickOnce(db, member.parameters).then(member.resolve, member.reject);
        else member.reject(error);
      }
      return;
    }
    for (const [i, member] of group.entries()) member.resolve(picked[i]);
  }

  return {
    async insertPickedInTurn(
      executor: Executor,
      read: LaneRead,
      offers: LaneOffer[],
      values: Omit<NewReservation, 'resourceId' | 'blockedUntil'>,
      now: string,
    ): Promise<Reservation | undefined> {
      const parameters = pickParameters(read, offers, values, now);
      if (executor.isTransaction) return pickOnce(executor, parameters);
      const typeId = values.resourceTypeId;
      const queue = waiting.get(typeId);
      if (queue) return new Promise((resolve, reject) => queue.push({ parameters, resolve, reject }));
      waiting.set(typeId, []);
      try {
        return await pickOnce(executor, parameters);
      } finally {
        // Settles every member itself: nothing to await or catch here.
        void pickWaiting(typeId);
      }
    },
  };
}

/** A statement of a group's transaction failed: the group is rolled back. */
class PickInGroupFailed extends Error {
  constructor(readonly failure: unknown) {
    super('a pick of the group failed', { cause: failure });
  }
}

/** A pick's statement parameters, given the reference it draws. */
type PickParameters = (reference: string) => unknown[];

interface WaitingPick {
  parameters: PickParameters;
  resolve(reservation: Reservation | undefined): void;
  reject(error: unknown): void;
}

/** The parameters of `pickStatement`, in the order it names them. */
function pickParameters(
  read: LaneRead,
  offers: LaneOffer[],
  values: Omit<NewReservation, 'resourceId' | 'blockedUntil'>,
  now: string,
): PickParameters {
  const weights = new Map(read.catalogue.map((row) => [row.id, row.assignmentWeight]));
  const laneIds = offers.map((offer) => offer.laneId);
  return (reference) => [
    values.organisationId,
    values.resourceTypeId,
    values.status,
    values.startTime,
    values.endTime,
    ...bookedValues(values),
    `fewest bookings in the last ${ROUND_ROBIN_DAYS} days (`,
    reference,
    now,
    now,
    laneIds,
    offers.map((offer) => offer.laneUpdatedAt),
    offers.map((offer) => new Date(offer.blockedUntil).toISOString()),
    laneIds.map((id) => weights.get(id) ?? 1),
    ASSIGNMENT_LOCKS,
    values.resourceTypeId,
    laneIds,
    windowAt(now).since,
    now,
  ];
}

export type RoundRobinPickRepo = ReturnType<typeof createRoundRobinPick>;

/** The pick's statement, compiled once: its parameters are `insertPickedInTurn`'s list, in order. */
function pickStatement(db: Executor) {
  return compiledOnce(() => {
    const p = Array.from({ length: 33 }, () => null as unknown);
    const guard = laneAsReadAt(db, sql.ref('o.lane_id'), sql.ref('o.lane_updated_at'))
      .select(sql.lit(1).as('one'))
      .forShare();
    const query = sql<Selectable<ReservationsTable>>`
      insert into reservations (organisation_id, resource_type_id, resource_id, status, start_time, end_time,
        blocked_until, customer_name, customer_email, customer_phone, customer_info, notes, price_amount,
        price_currency, source, created_by_user_id, rules_overridden_by_user_id, expires_at, manage_token_hash,
        manage_token_sealed, public_client_hash, series_id, assignment_strategy, assignment_reason, resource_ids,
        part_of, reference, created_at, updated_at)
      select ${p[0]}, ${p[1]}, o.lane_id, ${p[2]}, ${p[3]}, ${p[4]}, o.blocked_until, ${p[5]}, ${p[6]}, ${p[7]},
        ${p[8]}, ${p[9]}, ${p[10]}, ${p[11]}, ${p[12]}, ${p[13]}, ${p[14]}, ${p[15]}, ${p[16]}, ${p[17]},
        ${p[18]}, ${p[19]}, 'round_robin', ${p[20]}::text || o.bookings || ', weight ' || o.weight || ')',
        null, null, ${p[21]}, ${p[22]}, ${p[23]}
      -- Ranked in full (the sort runs the function, so the turn is taken) before the first
      -- lane's row is share-locked: the turn, then the lane, in every writer's order.
      from (
        select o.*, c.bookings, c.last_made
        from unnest(${p[24]}::integer[], ${p[25]}::timestamptz[], ${p[26]}::timestamptz[], ${p[27]}::integer[])
          with ordinality as o(lane_id, lane_updated_at, blocked_until, weight, n)
        join reservations_round_robin_counts(true, ${p[28]}, ${p[29]}, ${p[30]}::integer[], ${p[31]}, ${p[32]}) c
          on c.lane_id = o.lane_id
        order by c.bookings::float8 / o.weight, c.last_made nulls first, o.n
      ) o
      where exists (${guard})
      limit 1
      on conflict on constraint reservations_no_overlap do nothing
      returning *`;
    return { compile: () => query.compile(db) };
  });
}
