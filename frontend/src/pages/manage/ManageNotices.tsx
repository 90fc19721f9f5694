// What the manage page says above the reservation: the payment's return, a waitlist offer, the
// reservation's status and reference.
import type { ManagedReservation } from '../../api/types.js';
import { ManageLinkNote } from '../../components/BookingDone.js';
import { STATUS_WORDS } from '../../components/Reservation.js';
import type { WaitlistEntry } from '../../components/Waitlist.js';
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
  return (
    <>
      {fromPayment === 'complete' && r.status === 'confirmed' && !outcome ? (
        <>
          <p className="notice" role="status">
            Thank you: your payment was received and your booking is confirmed.
          </p>
          <ManageLinkNote url={manageUrl} />
        </>
      ) : null}
      <OutcomeNotice outcome={outcome} zone={zone} />
      {fromPayment === 'complete' && r.status === 'pending_payment' ? (
        <p className="notice" role="status">
          We are waiting for the payment provider to confirm your payment…
        </p>
      ) : null}
      {fromPayment === 'cancelled' && r.status === 'pending_payment' ? (
        <p className="notice" role="status">
          The payment was not completed. You can still pay before the time is released.
        </p>
      ) : null}
      {offer ? (
        <p className="notice" role="status">
          Good news from the waitlist: this time became free and is held for you
          {r.expiresAt ? ` until ${formatDateTime(r.expiresAt, zone)}` : ''}. Confirm it to book it; if you do
          not, it is offered to the next person in line.
        </p>
      ) : null}
      <p className={`status status-${r.status}`}>
        <strong>Status:</strong> {STATUS_WORDS[r.status]}
      </p>
      {r.reference ? (
        <p>
          Reference: <strong className="reference">{r.reference}</strong>
        </p>
      ) : null}
    </>
  );
}
