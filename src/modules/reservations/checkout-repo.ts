import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { toReservation } from './reservation-row.js';
import type { Reservation } from './schemas.js';
import type { ReservationsTable } from './tables.js';

/** The checkout a paid booking waits on, as payment.ts stores it. */
export interface CheckoutColumns {
  /** Minor units. */
  paymentAmount: number;
  paymentCurrency: string;
  paymentAccountId: string;
  paymentCheckoutId: string;
  paymentCheckoutUrl: string;
  paymentExpiresAt: string;
}

/**
 * The checkout of paid bookings (payment.ts): stored once, found by its id, or discarded with
 * the booking when it could not be made.
 */
export function createCheckoutRepo(db: Executor) {
  /**
   * Deletes the unpaid bookings without a checkout whose `column` is `value`, as if never made:
   * a collective booking's parts first (migration 0067), then the bookings.
   */
  async function discardUnpaidBy(column: 'id' | 'seriesId', value: number): Promise<void> {
    const discarded = db
      .selectFrom('reservations')
      .select('id')
      .where(column, '=', value)
      .where('status', '=', 'pending_payment')
      .where('paymentCheckoutId', 'is', null);
    await db.deleteFrom('reservations').where('partOf', 'in', discarded).execute();
    await db.deleteFrom('reservations').where('id', 'in', discarded).execute();
  }

  return {
    /** The reservation a checkout was made for, on the connected account `accountId` only. */
    async findByCheckout(
      checkoutId: string,
      accountId: string,
    ): Promise<Selectable<ReservationsTable> | undefined> {
      return db
        .selectFrom('reservations')
        .selectAll()
        .where('paymentCheckoutId', '=', checkoutId)
        .where('paymentAccountId', '=', accountId)
        .executeTakeFirst();
    },

    /** Every reservation a checkout was made for (a paid series' occurrences share one), by id. */
    async findAllByCheckout(checkoutId: string, accountId: string): Promise<Selectable<ReservationsTable>[]> {
      return db
        .selectFrom('reservations')
        .selectAll()
        .where('paymentCheckoutId', '=', checkoutId)
        .where('paymentAccountId', '=', accountId)
        .orderBy('id')
        .execute();
    },

    /** Stores the one checkout of a paid series on each of its occurrences just booked. */
    async attachSeriesCheckout(
      ids: number[],
      checkout: CheckoutColumns,
      now: string,
    ): Promise<Reservation[]> {
      const rows = await db
        .updateTable('reservations')
        .set({ ...checkout, paymentStatus: 'requires_payment', updatedAt: now })
        .where('id', 'in', ids)
        .where('paymentCheckoutId', 'is', null)
        .returningAll()
        .execute();
      return rows
        .map((row) => toReservation(row, Date.parse(now)))
        .sort((a, b) => a.startTime.localeCompare(b.startTime));
    },

    /** Deletes a paid series whose checkout could not be made, as if it was never booked. */
    async discardUnpaidSeries(seriesId: number): Promise<void> {
      await discardUnpaidBy('seriesId', seriesId);
      await db.deleteFrom('reservationSeries').where('id', '=', seriesId).execute();
    },

    /** A reservation's stored payment: its status and checkout, or undefined when it has none. */
    async storedPayment(id: number) {
      const row = await db
        .selectFrom('reservations')
        .select(['paymentStatus', 'paymentCheckoutId'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.paymentStatus && row.paymentCheckoutId
        ? { status: row.paymentStatus, checkoutId: row.paymentCheckoutId }
        : undefined;
    },

    /** Stores the checkout of a booking just made `pending_payment` (once). */
    async attachCheckout(
      id: number,
      checkout: CheckoutColumns,
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ ...checkout, paymentStatus: 'requires_payment', updatedAt: now })
        .where('id', '=', id)
        .where('paymentCheckoutId', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /** Deletes a booking whose checkout could not be made, as if it was never made: its time is free. */
    async discardUnpaid(id: number): Promise<void> {
      await discardUnpaidBy('id', id);
    },
  };
}

export type CheckoutRepo = ReturnType<typeof createCheckoutRepo>;
