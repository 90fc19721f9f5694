// What the customer just did on the manage page (moved, cancelled, confirmed), in words.
import type { ManagedReservation } from '../../api/types.js';
import { formatPrice } from '../../components/Reservation.js';
import { formatDateTime } from '../../lib/time.js';

/** What the customer just did here, said once the answer is in. */
export type Outcome =
  | { kind: 'moved'; start: string }
  | { kind: 'cancelled'; before: ManagedReservation; after: ManagedReservation }
  | { kind: 'confirmed' };

/** A cancellation in words: whether a payment was refunded, or nothing was charged. */
function cancelledWords(before: ManagedReservation, after: ManagedReservation): string {
  const payment = after.payment;
  if (payment?.status === 'refunded')
    return `Your booking is cancelled. Your payment of ${formatPrice(payment.amount, payment.currency)} was refunded in full; it may take a few days to reach your account.`;
  if (before.payment?.status === 'paid')
    return `Your booking is cancelled. Your payment was not refunded automatically: please contact ${after.organisation.name}.`;
  if (before.payment) return 'Your booking is cancelled. Nothing was charged.';
  return before.status === 'held'
    ? 'The time is released: nothing was booked.'
    : 'Your booking is cancelled.';
}

export function OutcomeNotice({ outcome, zone }: { outcome: Outcome | null; zone: string }) {
  if (!outcome) return null;
  const words =
    outcome.kind === 'moved'
      ? `Your booking was moved to ${formatDateTime(outcome.start, zone)}.`
      : outcome.kind === 'cancelled'
        ? cancelledWords(outcome.before, outcome.after)
        : 'Your booking is confirmed.';
  return (
    <p className="notice" role="status">
      {words}
    </p>
  );
}
