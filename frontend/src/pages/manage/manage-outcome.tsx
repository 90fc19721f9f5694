// What the customer just did on the manage page (moved, cancelled, confirmed), in words.
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { ManagedReservation } from '../../api/types.js';
import { useLocale } from '../../i18n/customer-language.js';
import { formatPrice } from '../../lib/price.js';
import { formatDateTime } from '../../lib/time.js';

/** What the customer just did here, said once the answer is in. */
export type Outcome =
  | { kind: 'moved'; start: string }
  | { kind: 'cancelled'; before: ManagedReservation; after: ManagedReservation }
  | { kind: 'confirmed' };

/** A cancellation in words: whether a payment was refunded, or nothing was charged. */
function cancelledWords(
  t: TFunction,
  locale: string,
  before: ManagedReservation,
  after: ManagedReservation,
): string {
  const payment = after.payment;
  if (payment?.status === 'refunded')
    return t('outcome.refunded', { price: formatPrice(payment.amount, payment.currency, locale) });
  if (before.payment?.status === 'paid')
    return t('outcome.notRefunded', { organisation: after.organisation.name });
  if (before.payment) return t('outcome.nothingCharged');
  return t(before.status === 'held' ? 'outcome.released' : 'outcome.cancelled');
}

export function OutcomeNotice({ outcome, zone }: { outcome: Outcome | null; zone: string }) {
  const { t } = useTranslation();
  const locale = useLocale();
  if (!outcome) return null;
  const words =
    outcome.kind === 'moved'
      ? t('outcome.moved', { when: formatDateTime(outcome.start, zone, locale) })
      : outcome.kind === 'cancelled'
        ? cancelledWords(t, locale, outcome.before, outcome.after)
        : t('outcome.confirmed');
  return (
    <p className="notice" role="status">
      {words}
    </p>
  );
}
