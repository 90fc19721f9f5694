// What the manage page says above the reservation: the payment's return, a waitlist offer, the
// reservation's status and reference.
import { useTranslation } from 'react-i18next';
import type { ManagedReservation } from '../../api/types.js';
import { ManageLinkNote } from '../../components/BookingDone.js';
import { statusKey } from '../../components/Reservation.js';
import type { WaitlistEntry } from '../../components/Waitlist.js';
import { useLocale } from '../../i18n/customer-language.js';
import { formatDateTime } from '../../lib/time.js';
import type { ManageState } from '../ManagePage.js';
import { type Outcome, OutcomeNotice } from './manage-outcome.js';

export function ManageNotices(props: {
  reservation: ManagedReservation;
  fromPayment?: ManageState['payment'];
  outcome: Outcome | null;
  offer?: WaitlistEntry | null;
  manageUrl: string;
  zone: string;
}) {
  const { reservation: r, fromPayment, outcome, offer, manageUrl, zone } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <>
      {fromPayment === 'complete' && r.status === 'confirmed' && !outcome ? (
        <>
          <p className="notice" role="status">
            {t('manage.paidConfirmed')}
          </p>
          <ManageLinkNote url={manageUrl} />
        </>
      ) : null}
      <OutcomeNotice outcome={outcome} zone={zone} />
      {fromPayment === 'complete' && r.status === 'pending_payment' ? (
        <p className="notice" role="status">
          {t('manage.waitingProvider')}
        </p>
      ) : null}
      {fromPayment === 'cancelled' && r.status === 'pending_payment' ? (
        <p className="notice" role="status">
          {t('manage.paymentNotCompleted')}
        </p>
      ) : null}
      {offer ? (
        <p className="notice" role="status">
          {r.expiresAt
            ? t('manage.offerUntil', { when: formatDateTime(r.expiresAt, zone, locale) })
            : t('manage.offer')}
        </p>
      ) : null}
      <p className={`status status-${r.status}`}>
        <strong>{t('common.status')}</strong> {t(statusKey(r.status))}
      </p>
      {r.reference ? (
        <p>
          {t('common.reference')} <strong className="reference">{r.reference}</strong>
        </p>
      ) : null}
    </>
  );
}
