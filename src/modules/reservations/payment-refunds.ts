import { nowIso } from '../../lib/time.js';
import type { Checkouts } from './payment-checkouts.js';
import type { ReservationRepo } from './repo.js';
import type { Reservation } from './schemas.js';

/** A refund made for a cancel, as the reservation records it. */
export interface CancelRefund {
  refundId: string;
  paymentId: string | null;
}

/** What cancelling a paid reservation does with its money: refunded in full, or its checkout closed. */
export interface CancelRefunds {
  /**
   * Before cancelling `found`: refunds its payment in full when it is paid (so a failed
   * refund changes nothing and the cancel can be retried). Answers the refund to record.
   */
  refundBeforeCancel(
    found: Reservation,
    options?: { wholeSeries?: boolean },
  ): Promise<CancelRefund | undefined>;
  /**
   * A paid series cancelled whole before its first occurrence: its one payment is refunded
   * in full and recorded on every occurrence. Answers whether money went back.
   */
  refundSeries(occurrences: Reservation[]): Promise<boolean>;
  /**
   * After cancelling: records the refund made for it, or closes the checkout an unpaid
   * booking was waiting on (money that comes anyway is refunded by the webhook).
   */
  afterCancel(cancelled: Reservation, refunded: CancelRefund | undefined): Promise<Reservation>;
}

export function createCancelRefunds(deps: { repo: ReservationRepo; checkouts: Checkouts }): CancelRefunds {
  const { repo } = deps;
  const { closeCheckout, refund } = deps.checkouts;

  return {
    async refundBeforeCancel(found, options = {}) {
      if (found.payment?.status !== 'paid') return undefined;
      // One occurrence of a paid series is let go without money back: the payment is the
      // series'. Cancelling the whole series before it starts refunds it (series.ts).
      if (found.seriesId !== null && !options.wholeSeries) return undefined;
      const stored = await repo.storedPayment(found.id);
      if (stored?.status !== 'paid') return undefined;
      const made = await refund(stored.checkoutId);
      return { refundId: made.id, paymentId: made.paymentId };
    },

    async refundSeries(occurrences) {
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

    async afterCancel(cancelled, refunded) {
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
