import { sql } from 'kysely';
import { committedWithOthers, compiledOnce, type Dialect, type Executor } from '../../db/database.js';
import { typeTakingPayment } from '../resource-types/ports.js';
import { toReservation } from './reservation-row.js';
import { keepsTimeAt, lapsedAt } from './reservation-time.js';
import type { Reservation } from './schemas.js';
import type { ReservationStatus } from './tables.js';

/** A reservation's status changes by the clock and by hand: expiry, confirm, cancel. */
export function createStatusChangeRepo(db: Executor, dialect: Dialect) {
  // A hold's confirm (`confirmUnpaidHold`), compiled once: by anyone, or only by its maker.
  // Literals, so the parameters are only now, the id, the organisation, now (and the maker).
  const confirmHoldBy = (maker: boolean) =>
    compiledOnce(() => {
      const update = db
        .updateTable('reservations')
        .set({ status: sql.lit('confirmed'), expiresAt: sql.lit(null), updatedAt: '' })
        .where('id', '=', 0)
        .where('organisationId', '=', 0)
        .where('status', '=', sql.lit('held'))
        .where(keepsTimeAt(''))
        .where((eb) => eb.not(eb.exists(typeTakingPayment(db, eb.ref('reservations.resourceTypeId')))));
      return (maker ? update.where('createdByUserId', '=', 0) : update).returningAll();
    });
  const confirmHold = confirmHoldBy(false);
  const confirmOwnHold = confirmHoldBy(true);

  return {
    /**
     * Marks `expired` up to `limit` holds and unpaid bookings whose expiry passed at `now`,
     * oldest first, and answers them. Idempotent and safe to run on several instances at
     * once: the update re-checks each row, and on PostgreSQL rows another run is marking
     * are skipped rather than waited for, so no row is answered twice.
     */
    async expireLapsed(executor: Executor, now: string, limit: number): Promise<Reservation[]> {
      const rows = await executor
        .updateTable('reservations')
        .set({ status: 'expired', expiresAt: null, updatedAt: now })
        .where('id', 'in', (eb) => {
          const due = eb
            .selectFrom('reservations')
            .select('id')
            .where(lapsedAt(now))
            .orderBy('expiresAt')
            .limit(limit);
          return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
        })
        .where(lapsedAt(now))
        .returningAll()
        .execute();
      return rows.map((row) => toReservation(row));
    },

    /**
     * Moves a reservation still keeping its time at `now` from one of `from` to `to`: its
     * expiry ends (null), and a cancellation records when. Undefined when it is in another
     * status or has lapsed.
     */
    async transition(
      id: number,
      from: readonly ReservationStatus[],
      to: 'confirmed' | 'cancelled',
      now: string,
      /** The staff member who made this change past the type's booking rules, recorded when given. */
      rulesOverriddenByUserId: number | null = null,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({
          status: to,
          expiresAt: null,
          updatedAt: now,
          ...(to === 'cancelled' ? { cancelledAt: now } : {}),
          ...(rulesOverriddenByUserId !== null ? { rulesOverriddenByUserId } : {}),
        })
        .where('id', '=', id)
        .where('status', 'in', from)
        .where(keepsTimeAt(now))
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /**
     * Confirms a hold keeping its time at `now` in one statement, when nothing stands in the
     * way: in the organisation, made by `madeBy` (null: by anyone), of a type that takes no
     * payment. Undefined otherwise, for the caller to read and say why (or take payment).
     */
    async confirmUnpaidHold(
      id: number,
      organisationId: number,
      madeBy: number | null,
      now: string,
    ): Promise<Reservation | undefined> {
      const confirm = (executor: Executor) =>
        madeBy === null
          ? confirmHold(executor, now, id, organisationId, now)
          : confirmOwnHold(executor, now, id, organisationId, now, madeBy);
      const [row] = (await committedWithOthers(db, confirm)).rows;
      return row && toReservation(row, Date.parse(now));
    },
  };
}

export type StatusChangeRepo = ReturnType<typeof createStatusChangeRepo>;
