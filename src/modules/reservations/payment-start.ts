import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { PaymentsService } from '../payments/service.js';
import { type Checkouts, chargeOf } from './payment-checkouts.js';
import type { CheckoutColumns, ReservationRepo } from './repo.js';
import type { Reservation } from './schemas.js';

/** How a paid booking, series or hold comes to wait on its checkout. */
export interface PaymentStarts {
  /**
   * The checkout of a booking just made `pending_payment` (its expiresAt set from the
   * type's payment window). If the provider fails, the booking is removed, its time
   * free, and the caller gets the provider's error.
   */
  startForBooking(booked: Reservation, accountId: string): Promise<Reservation>;
  /**
   * The one checkout of a paid series just booked, for its total, stored on every
   * occurrence. If the provider fails, the series is removed, its times free.
   */
  startForSeries(booked: Reservation[], accountId: string): Promise<Reservation[]>;
  /**
   * Confirming a paid type's hold: a checkout first (the hold keeps its time meanwhile,
   * and stays held if the provider fails), then the hold becomes `pending_payment` until
   * `paymentWindowMinutes` from now. Undefined when the hold lapsed or changed meanwhile
   * (its checkout is closed again).
   */
  startForHold(
    organisationId: number,
    held: Reservation,
    type: { paymentWindowMinutes: number; priceAmount: number | null; priceCurrency: string | null },
  ): Promise<Reservation | undefined>;
}

export function createPaymentStarts(deps: {
  repo: ReservationRepo;
  payments: PaymentsService;
  checkouts: Checkouts;
}): PaymentStarts {
  const { repo, payments } = deps;
  const { openCheckout, closeCheckout } = deps.checkouts;

  return {
    async startForBooking(booked, accountId) {
      let checkout: CheckoutColumns;
      try {
        checkout = await openCheckout(booked, accountId, chargeOf(booked), booked.expiresAt!);
      } catch (error) {
        await repo.discardUnpaid(booked.id);
        throw error;
      }
      const stored = await repo.attachCheckout(booked.id, checkout, nowIso());
      if (stored) return stored;
      // Gone meanwhile (nothing else removes an unpaid booking without a checkout).
      await closeCheckout(checkout.paymentCheckoutId);
      throw conflict('CONFLICT', 'The reservation changed while its payment was being set up; try again');
    },

    async startForSeries(booked, accountId) {
      const lead = booked[0]!;
      let checkout: CheckoutColumns;
      try {
        const each = booked.map(chargeOf);
        const charge = { amount: each.reduce((sum, c) => sum + c.amount, 0), currency: each[0]!.currency };
        checkout = await openCheckout(lead, accountId, charge, lead.expiresAt!);
      } catch (error) {
        await repo.discardUnpaidSeries(lead.seriesId!);
        throw error;
      }
      const stored = await repo.attachSeriesCheckout(
        booked.map((r) => r.id),
        checkout,
        nowIso(),
      );
      if (stored.length === booked.length) return stored;
      await closeCheckout(checkout.paymentCheckoutId);
      throw conflict('CONFLICT', 'The series changed while its payment was being set up; try again');
    },

    async startForHold(organisationId, held, type) {
      const accountId = await payments.chargeableAccount(organisationId);
      const charge = chargeOf({
        ...held,
        priceAmount: held.priceAmount ?? type.priceAmount,
        priceCurrency: held.priceCurrency ?? type.priceCurrency,
      });
      const now = nowIso();
      const expiresAt = new Date(Date.parse(now) + type.paymentWindowMinutes * 60_000).toISOString();
      const checkout = await openCheckout(held, accountId, charge, expiresAt);
      const waiting = await repo.holdToPayment(held.id, checkout, expiresAt, nowIso());
      if (!waiting) await closeCheckout(checkout.paymentCheckoutId);
      return waiting;
    },
  };
}
