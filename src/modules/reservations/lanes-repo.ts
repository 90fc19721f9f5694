import { sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor } from '../../db/database.js';
import type { AssignmentStrategy } from '../resource-types/tables.js';
import { laneAsRead } from '../resources/ports.js';
import { toReservation } from './reservation-row.js';
import { keepsTimeAt, lapsedAt } from './reservation-time.js';
import type { Reservation } from './schemas.js';

/**
 * PostgreSQL's answers when the exclusion constraint refuses overlapping time on a lane:
 * a violation (a move; a booking's insert answers no row instead), or (should two writers
 * in longer transactions ever wait on each other's uncommitted rows) a deadlock that
 * aborts one of them, whose lane the other then holds.
 */
export const LANE_REFUSED = new Set(['23P01', '40P01']);

/**
 * The first key of the per-lane advisory locks (the second is the lane id): "lane". Only
 * writers that change a row's time or status on a lane take it (a move, late money), so
 * two of them queue rather than deadlock; a booking's insert needs none (`insertOnLane`).
 */
export const LANE_LOCKS = 0x6c616e65;

/**
 * A booking's sweep of the lane it takes (see `expireLapsedOnLane`), compiled once too; late
 * money (`retakePaid`) sweeps the lane it takes back with it.
 */
export function expireOnLaneStatement(db: Executor) {
  return compiledOnce(() =>
    db
      .updateTable('reservations')
      // Literals, so the parameters are only now, the lane and now.
      .set({ status: sql.lit('expired'), expiresAt: sql.lit(null), updatedAt: '' })
      .where('resourceId', '=', 0)
      .where(lapsedAt(''))
      .returningAll(),
  );
}

/** A reservation's time on its lane once booked: a move, and the sweep of lapsed holds before a booking. */
export function createLaneRepo(db: Executor, dialect: Dialect) {
  const expireOnLane = expireOnLaneStatement(db);
  return {
    /**
     * Marks `expired` the lane's holds and unpaid bookings whose expiry passed at `now`: a
     * booking does this before (SQLite) or after a refused (PostgreSQL) insert, since
     * PostgreSQL's exclusion constraint cannot see the clock and refuses time a lapsed hold
     * still has. Answers what it marked.
     */
    async expireLapsedOnLane(executor: Executor, laneId: number, now: string): Promise<Reservation[]> {
      const { rows } = await expireOnLane(executor, now, laneId, now);
      return rows.map((row) => toReservation(row));
    },

    /**
     * Moves a reservation, through `executor`, from the lane and time it was read at
     * (`from`) to `to`, keeping everything else (status, expiry, payment, series). Only
     * while it still keeps its time at `now` and is where it was read, and only while the
     * new lane's row is as the move read it (`laneUpdatedAt`), as `insertOnLane` guards a
     * booking; on PostgreSQL the lane's row is share-locked as a booking's insert locks it,
     * moves of one lane queue on its advisory lock, and the exclusion constraint refuses the
     * new time when it is taken. Undefined when refused.
     */
    async moveOnLane(
      executor: Executor,
      move: {
        id: number;
        from: { resourceId: number; startTime: string; endTime: string };
        to: {
          resourceId: number;
          startTime: string;
          endTime: string;
          blockedUntil: string;
          /** How the pool gave it the new lane (null: a named resource). */
          assignmentStrategy: AssignmentStrategy | null;
          assignmentReason: string | null;
          /** A collective reservation's: the type of the resource it now keeps, and its resources as JSON. */
          resourceTypeId?: number;
          resourceIds?: string;
        };
        /** The staff member who moved it past the type's booking rules, recorded when given. */
        rulesOverriddenByUserId: number | null;
      },
      laneUpdatedAt: string,
      now: string,
    ): Promise<Reservation | undefined> {
      const lane = laneAsRead(executor, move.to.resourceId, laneUpdatedAt).select(sql.lit(1).as('one'));
      const guard =
        dialect === 'postgres'
          ? lane
              .forShare()
              .where(
                (eb) =>
                  sql<boolean>`exists (select from pg_advisory_xact_lock(${sql.lit(LANE_LOCKS)}, ${eb.ref('id')}))`,
              )
          : lane;
      try {
        const row = await executor
          .updateTable('reservations')
          .set({
            ...move.to,
            updatedAt: now,
            ...(move.rulesOverriddenByUserId !== null
              ? { rulesOverriddenByUserId: move.rulesOverriddenByUserId }
              : {}),
          })
          .where('id', '=', move.id)
          .where('resourceId', '=', move.from.resourceId)
          .where('startTime', '=', move.from.startTime)
          .where('endTime', '=', move.from.endTime)
          .where(keepsTimeAt(now))
          .where((eb) => eb.exists(guard))
          .returningAll()
          .executeTakeFirst();
        return row && toReservation(row, Date.parse(now));
      } catch (error) {
        if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
        throw error;
      }
    },
  };
}

export type LaneRepo = ReturnType<typeof createLaneRepo>;
