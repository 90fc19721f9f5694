import { nowIso } from '../../lib/time.js';
import type { CheckoutEventType, ProviderCheckout } from '../payments/provider.js';
import type {
  ActionablePaymentEvent,
  PaymentEventHandler,
  PaymentEventOutcome,
} from '../payments/service.js';
import type { Checkouts } from './payment-checkouts.js';
import type { ReservationRepo } from './repo.js';

type CheckoutEvent = Extract<ActionablePaymentEvent, { checkout: ProviderCheckout }>;
type CheckoutRows = Awaited<ReturnType<ReservationRepo['findAllByCheckout']>>;

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

/**
 * The provider's verified events (handed over by the payments service) for reservations:
 * they confirm, decline or expire the booking waiting on the checkout they name; money that
 * comes late takes the time back when it is still free and is refunded otherwise.
 */
export function createPaymentEventHandler(deps: {
  repo: ReservationRepo;
  refund: Checkouts['refund'];
}): PaymentEventHandler {
  const { repo, refund } = deps;

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
    event: CheckoutEvent,
    checkout: ProviderCheckout,
    rows: CheckoutRows,
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

  return applyEvent;
}
