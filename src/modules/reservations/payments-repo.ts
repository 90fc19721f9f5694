import { sql } from 'kysely';
import { type Dialect, type Executor, inTransaction } from '../../db/database.js';
import type { CheckoutColumns } from './checkout-repo.js';
import { expireOnLaneStatement, LANE_LOCKS, LANE_REFUSED } from './lanes-repo.js';
import { lapsed, PAYABLE, toReservation } from './reservation-row.js';
import { keepsTimeAt } from './reservation-time.js';
import type { Reservation } from './schemas.js';
import type { ReservationStatus } from './tables.js';

/**
 * The payment of paid bookings (payment.ts): each change is conditional on the row's
 * current state, so a repeated or concurrent event finds nothing left to change.
 */
export function createPaymentRepo(db: Executor, dialect: Dialect) {
  const expireOnLane = expireOnLaneStatement(db);
  return {
    /** A hold still keeping its time at `now` waits for payment on `checkout` until `expiresAt`. */
    async holdToPayment(
      id: number,
      checkout: CheckoutColumns,
      expiresAt: string,
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({
          ...checkout,
          status: 'pending_payment',
          paymentStatus: 'requires_payment',
          expiresAt,
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('status', '=', 'held')
        .where(keepsTimeAt(now))
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /** Money for a booking still waiting for it at `now`: `confirmed`, paid. */
    async markPaid(id: number, paymentId: string | null, now: string): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ status: 'confirmed', expiresAt: null, paymentStatus: 'paid', paymentId, updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'pending_payment')
        .where('paymentStatus', 'in', PAYABLE)
        .where(keepsTimeAt(now))
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /** A declined attempt: the booking keeps waiting (and its time) until it expires or is paid. */
    async markFailed(id: number, now: string): Promise<boolean> {
      const row = await db
        .updateTable('reservations')
        .set({ paymentStatus: 'failed', updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'pending_payment')
        .where('paymentStatus', '=', 'requires_payment')
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * The checkout expired unpaid: the payment is `expired`, and a booking still waiting for
     * it becomes `expired` at once, its time free (even before its own expiresAt).
     */
    async expireUnpaid(id: number, now: string): Promise<boolean> {
      const row = await db
        .updateTable('reservations')
        .set({
          status: sql<ReservationStatus>`case when status = 'pending_payment' then 'expired' else status end`,
          expiresAt: null,
          paymentStatus: 'expired',
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('paymentStatus', 'in', PAYABLE)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Late money: a booking that expired unpaid takes its time back, `confirmed` and paid,
     * when nothing else keeps any of it at `now` and it is still ahead; undefined otherwise.
     * PostgreSQL: the lane's advisory lock orders it with moves on the lane, and the
     * exclusion constraint refuses it if its time is taken (a booking's speculative insert
     * waits for it, or backs out of its way). SQLite: one transaction on the only
     * connection, checked here.
     */
    async retakePaid(id: number, paymentId: string | null, now: string): Promise<Reservation | undefined> {
      /**
       * Whether `row`'s lane can keep its time again: lapsed holds swept off it (their rows may
       * still say they hold), its moves queued behind this one (PostgreSQL, whose exclusion
       * constraint then judges), or no other row of it keeping the time (SQLite).
       */
      const laneFreeFor = async (
        trx: Executor,
        row: { resourceId: number | null; startTime: string; endTime: string; blockedUntil: string | null },
        own: number[],
        now: string,
      ) => {
        const laneId = row.resourceId!;
        if (dialect === 'postgres')
          await sql`select pg_advisory_xact_lock(${sql.lit(LANE_LOCKS)}, ${laneId}::int)`.execute(trx);
        await expireOnLane(trx, now, laneId, now);
        if (dialect === 'postgres') return true;
        const taken = await trx
          .selectFrom('reservations')
          .select('id')
          .where('resourceId', '=', laneId)
          .where('id', 'not in', own)
          .where(keepsTimeAt(now))
          .where('startTime', '<', row.blockedUntil ?? row.endTime)
          .where(sql<string>`coalesce(blocked_until, end_time)`, '>', row.startTime)
          .limit(1)
          .executeTakeFirst();
        return taken === undefined;
      };
      const retake = (trx: Executor) =>
        inTransaction(trx, async (trx) => {
          // The reservation and a collective one's parts (migration 0067), which follow it back.
          const rows = await trx
            .selectFrom('reservations')
            .selectAll()
            .where((eb) => eb.or([eb('id', '=', id), eb('partOf', '=', id)]))
            .orderBy('resourceId')
            .execute();
          const row = rows.find((found) => found.id === id);
          const late =
            row &&
            (row.status === 'expired' || (row.status === 'pending_payment' && lapsed(row, Date.parse(now))));
          if (!row || !late || row.resourceId === null || Date.parse(row.startTime) <= Date.parse(now))
            return undefined;
          const own = rows.map((found) => found.id);
          for (const kept of rows) {
            if (kept.resourceId === null) continue;
            if (!(await laneFreeFor(trx, kept, own, now))) return undefined;
          }
          const confirmed = await trx
            .updateTable('reservations')
            .set({ status: 'confirmed', expiresAt: null, paymentStatus: 'paid', paymentId, updatedAt: now })
            .where('id', '=', id)
            .where('status', 'in', ['expired', 'pending_payment'])
            .returningAll()
            .executeTakeFirst();
          return confirmed && toReservation(confirmed, Date.parse(now));
        });
      try {
        return await retake(db);
      } catch (error) {
        if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
        throw error;
      }
    },

    /** The payment was refunded in full: recorded once, whatever the reservation's status. */
    async recordRefund(
      id: number,
      refund: { refundId: string; paymentId: string | null },
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({
          paymentStatus: 'refunded',
          paymentRefundId: refund.refundId,
          paymentId: sql<string | null>`coalesce(payment_id, ${refund.paymentId})`,
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('paymentStatus', '!=', 'refunded')
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },
  };
}

export type PaymentRepo = ReturnType<typeof createPaymentRepo>;
