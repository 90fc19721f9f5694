import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { CheckoutEventType, ProviderCheckout } from '../payments/provider.js';
import type { ActionablePaymentEvent, PaymentEventOutcome, PaymentsService } from '../payments/service.js';
import type { CheckoutColumns, createReservationRepo } from './repo.js';
import type { Reservation } from './schemas.js';

type ReservationRepo = ReturnType<typeof createReservationRepo>;

/**
 * What a checkout event means for the money: a completed checkout is paid only when the
 * provider says `paid`; completed `unpaid` (a payment that settles later) changes nothing
 * until its async outcome arrives.
 */
function moneyOf(event: { type: CheckoutEventType; checkout: ProviderCheckout }) {
  switch (event.type) {
    case 'checkout.completed':
    case 'checkout.async_payment_succeeded':
      return event.checkout.paymentStatus === 'paid' ? 'paid' : 'none';
    case 'checkout.failed':
    case 'checkout.async_payment_failed':
      return 'failed';
    case 'checkout.expired':
      return 'expired';
  }
}

/** What a paid reservation charges: its price snapshot, in minor units. */
interface Charge {
  amount: number;
  currency: string;
}

/**
 * The reservation side of payment (DECISIONS.md "Payment"): a paid booking waits in
 * `pending_payment` on a hosted checkout at the organisation's connected account, which
 * expires with it; the provider's verified events (handed over by the payments service)
 * confirm, decline or expire it; money that comes late takes the time back when it is
 * still free and is refunded otherwise; cancelling a paid reservation refunds it in full.
 */
export function createReservationPayments(deps: {
  repo: ReservationRepo;
  payments: PaymentsService;
  config: Config;
  log?: FastifyBaseLogger | undefined;
}) {
  const { repo, payments, config, log } = deps;
  const provider = payments.provider;

  /** Where the customer lands after paying or giving up; the frontend reads the reservation's state. */
  const returnUrl = (reservationId: number, outcome: 'complete' | 'cancelled') =>
    `${config.frontendUrl}/payment/${outcome}?reservation=${reservationId}`;

  /**
   * A checkout for `reservation` on `accountId` closing at `expiresAt`. The idempotency key
   * names the reservation and that expiry, so the adapter's retries answer one checkout.
   */
  async function openCheckout(
    reservation: Reservation,
    accountId: string,
    charge: Charge,
    expiresAt: string,
  ): Promise<CheckoutColumns> {
    const checkout = await provider.createCheckout({
      accountId,
      amount: charge.amount,
      currency: charge.currency,
      successUrl: returnUrl(reservation.id, 'complete'),
      cancelUrl: returnUrl(reservation.id, 'cancelled'),
      expiresAt,
      metadata: { reservation_id: String(reservation.id) },
      idempotencyKey: `reservation-${reservation.id}-${Date.parse(reservation.createdAt)}-checkout-${Date.parse(expiresAt)}`,
    });
    return {
      paymentAmount: checkout.amount,
      paymentCurrency: checkout.currency,
      paymentAccountId: accountId,
      paymentCheckoutId: checkout.id,
      paymentCheckoutUrl: checkout.url,
      paymentExpiresAt: checkout.expiresAt,
    };
  }

  /** Closes a checkout nothing waits on any more; a failure only leaves it to expire by itself. */
  async function closeCheckout(checkoutId: string) {
    try {
      await provider.expireCheckout(checkoutId);
    } catch (error) {
      log?.warn({ err: error, checkoutId }, 'could not expire a payment checkout');
    }
  }

  /** Refunds a checkout's payment in full; the key makes a retried or concurrent refund one refund. */
  const refund = (checkoutId: string) =>
    provider.refund({ checkoutId, idempotencyKey: `refund-${checkoutId}` });

  /** The charge of a reservation: its price snapshot (a paid type always has one above zero). */
  function chargeOf(reservation: Reservation): Charge {
    if (!reservation.priceAmount || !reservation.priceCurrency)
      throw conflict(
        'PAYMENT_NOT_READY',
        'This resource type takes payment but has no price above zero; nothing was charged',
      );
    return { amount: reservation.priceAmount, currency: reservation.priceCurrency };
  }

  /** Late money: the time back when still free, else the money back. */
  async function lateMoney(
    row: { id: number; paymentCheckoutId: string | null },
    paymentId: string | null,
    now: string,
    cancelled: boolean,
  ): Promise<PaymentEventOutcome> {
    if (!cancelled && (await repo.retakePaid(row.id, paymentId, now))) return 'applied';
    const refunded = await refund(row.paymentCheckoutId!);
    await repo.recordRefund(row.id, { refundId: refunded.id, paymentId: refunded.paymentId }, now);
    return 'applied';
  }

  /** One verified provider event, for the reservation whose checkout (on that account) it names. */
  async function applyEvent(event: ActionablePaymentEvent): Promise<PaymentEventOutcome> {
    const now = nowIso();
    if (event.type === 'refund.succeeded') {
      const row = await repo.findByCheckout(event.refund.checkoutId, event.accountId);
      if (!row) return 'unknown';
      const recorded = await repo.recordRefund(
        row.id,
        { refundId: event.refund.id, paymentId: event.refund.paymentId },
        now,
      );
      return recorded ? 'applied' : 'unchanged';
    }
    const checkout: ProviderCheckout = event.checkout;
    // Only the account the checkout was made on speaks for it, and only for what was charged.
    if (checkout.accountId !== event.accountId) return 'unknown';
    const rows = await repo.findAllByCheckout(checkout.id, event.accountId);
    if (rows.length > 1) return applySeriesEvent(event, checkout, rows, now);
    const row = rows[0];
    if (!row) return 'unknown';
    if (checkout.metadata.reservation_id !== undefined && checkout.metadata.reservation_id !== String(row.id))
      return 'unknown';
    if (checkout.amount !== row.paymentAmount || checkout.currency !== row.paymentCurrency) return 'unknown';

    switch (moneyOf(event)) {
      case 'none':
        return 'unchanged';
      case 'failed':
        return (await repo.markFailed(row.id, now)) ? 'applied' : 'unchanged';
      case 'expired':
        return (await repo.expireUnpaid(row.id, now)) ? 'applied' : 'unchanged';
      case 'paid': {
        if (await repo.markPaid(row.id, checkout.paymentId, now)) return 'applied';
        // Not waiting (any more): paid or refunded already, or the money came late.
        const current = (await repo.findByCheckout(checkout.id, event.accountId))!;
        if (current.paymentStatus === 'paid' || current.paymentStatus === 'refunded') return 'unchanged';
        return lateMoney(current, checkout.paymentId, now, current.status === 'cancelled');
      }
    }
  }
  /**
   * A checkout event of a paid series: it confirms, declines or expires every occurrence
   * waiting on it, as a whole. Money that comes late (or after occurrences were let go) is
   * refunded in full: a series does not take back part of its time.
   */
  async function applySeriesEvent(
    event: Extract<ActionablePaymentEvent, { checkout: ProviderCheckout }>,
    checkout: ProviderCheckout,
    rows: Awaited<ReturnType<ReservationRepo['findAllByCheckout']>>,
    now: string,
  ): Promise<PaymentEventOutcome> {
    const lead = rows[0]!;
    if (
      checkout.metadata.reservation_id !== undefined &&
      checkout.metadata.reservation_id !== String(lead.id)
    )
      return 'unknown';
    if (checkout.amount !== lead.paymentAmount || checkout.currency !== lead.paymentCurrency)
      return 'unknown';
    let changed = 0;
    switch (moneyOf(event)) {
      case 'none':
        return 'unchanged';
      case 'failed':
        for (const row of rows) if (await repo.markFailed(row.id, now)) changed++;
        return changed > 0 ? 'applied' : 'unchanged';
      case 'expired':
        for (const row of rows) if (await repo.expireUnpaid(row.id, now)) changed++;
        return changed > 0 ? 'applied' : 'unchanged';
      case 'paid': {
        for (const row of rows) if (await repo.markPaid(row.id, checkout.paymentId, now)) changed++;
        if (changed === rows.length) return 'applied';
        const current = await repo.findAllByCheckout(checkout.id, event.accountId);
        if (current.some((row) => row.paymentStatus === 'refunded'))
          return changed > 0 ? 'applied' : 'unchanged';
        if (changed > 0 && current.every((row) => row.paymentStatus === 'paid' || row.status === 'cancelled'))
          return 'applied';
        if (changed === 0 && current.every((row) => row.paymentStatus === 'paid')) return 'unchanged';
        // Late for some of it: the whole payment goes back, and no occurrence keeps it.
        const refunded = await refund(checkout.id);
        for (const row of current)
          await repo.recordRefund(row.id, { refundId: refunded.id, paymentId: refunded.paymentId }, now);
        return 'applied';
      }
    }
  }
  payments.handleEvents(applyEvent);

  return {
    /** The organisation's account that takes the charge, read through `executor`; else 409 PAYMENT_NOT_READY. */
    chargeableAccount: (organisationId: number, executor?: Executor) =>
      payments.chargeableAccount(organisationId, executor),

    /**
     * The checkout of a booking just made `pending_payment` (its expiresAt set from the
     * type's payment window). If the provider fails, the booking is removed, its time
     * free, and the caller gets the provider's error.
     */
    async startForBooking(booked: Reservation, accountId: string): Promise<Reservation> {
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

    /**
     * The one checkout of a paid series just booked, for its total, stored on every
     * occurrence. If the provider fails, the series is removed, its times free.
     */
    async startForSeries(booked: Reservation[], accountId: string): Promise<Reservation[]> {
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

    /**
     * Confirming a paid type's hold: a checkout first (the hold keeps its time meanwhile,
     * and stays held if the provider fails), then the hold becomes `pending_payment` until
     * `paymentWindowMinutes` from now. Undefined when the hold lapsed or changed meanwhile
     * (its checkout is closed again).
     */
    async startForHold(
      organisationId: number,
      held: Reservation,
      type: { paymentWindowMinutes: number; priceAmount: number | null; priceCurrency: string | null },
    ): Promise<Reservation | undefined> {
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

    /**
     * Before cancelling `found`: refunds its payment in full when it is paid (so a failed
     * refund changes nothing and the cancel can be retried). Answers the refund to record.
     */
    async refundBeforeCancel(found: Reservation, options: { wholeSeries?: boolean } = {}) {
      if (found.payment?.status !== 'paid') return undefined;
      // One occurrence of a paid series is let go without money back: the payment is the
      // series'. Cancelling the whole series before it starts refunds it (series.ts).
      if (found.seriesId !== null && !options.wholeSeries) return undefined;
      const stored = await repo.storedPayment(found.id);
      if (stored?.status !== 'paid') return undefined;
      const made = await refund(stored.checkoutId);
      return { refundId: made.id, paymentId: made.paymentId };
    },

    /**
     * A paid series cancelled whole before its first occurrence: its one payment is refunded
     * in full and recorded on every occurrence. Answers whether money went back.
     */
    async refundSeries(occurrences: Reservation[]): Promise<boolean> {
      const paid = occurrences.find((r) => r.payment?.status === 'paid');
      if (!paid) return false;
      const stored = await repo.storedPayment(paid.id);
      if (stored?.status !== 'paid') return false;
      const made = await refund(stored.checkoutId);
      const now = nowIso();
      for (const r of occurrences)
        await repo.recordRefund(r.id, { refundId: made.id, paymentId: made.paymentId }, now);
      return true;
    },

    /**
     * After cancelling: records the refund made for it, or closes the checkout an unpaid
     * booking was waiting on (money that comes anyway is refunded by the webhook).
     */
    async afterCancel(
      cancelled: Reservation,
      refunded: { refundId: string; paymentId: string | null } | undefined,
    ): Promise<Reservation> {
      // The provider's refund.succeeded may have recorded it first: then the row already says so.
      if (refunded)
        return (
          (await repo.recordRefund(cancelled.id, refunded, nowIso())) ??
          (await repo.findById(cancelled.id)) ??
          cancelled
        );
      const stored = cancelled.payment && (await repo.storedPayment(cancelled.id));
      if (stored && (stored.status === 'requires_payment' || stored.status === 'failed'))
        await closeCheckout(stored.checkoutId);
      return cancelled;
    },
  };
}

export type ReservationPayments = ReturnType<typeof createReservationPayments>;
