// The manage page's buttons and the two steps they open: cancelling and picking a new time.
import { alternativesOf } from '../../api/errors.js';
import type { ManagedReservation } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { Refusal } from '../../components/Refusal.js';
import { IcsLink } from '../../components/Reservation.js';
import { SlotPicker } from '../../components/SlotPicker.js';
import { type BookableTime, durationMinutes, formatDateTime } from '../../lib/time.js';
import type { ManageActions } from './use-manage-actions.js';

export type ManageMode = 'view' | 'cancel' | 'reschedule';

/** The actions on a reservation still in force: confirm, pay, add to a calendar, move, cancel. */
export function ActionButtons(props: {
  reservation: ManagedReservation;
  actions: ManageActions;
  what: string;
  paymentRequired: boolean;
  manageUrl: string;
  onMode: (mode: ManageMode) => void;
}) {
  const { reservation: r, actions, what, paymentRequired, manageUrl, onMode } = props;
  const { confirm } = actions;
  const payable =
    r.status === 'pending_payment' &&
    r.payment?.checkoutUrl &&
    (r.payment.status === 'requires_payment' || r.payment.status === 'failed');
  return (
    <div className="actions">
      {r.status === 'held' ? (
        <button
          type="button"
          className="primary"
          disabled={confirm.isPending}
          onClick={() => confirm.mutate()}
        >
          {paymentRequired ? 'Confirm and pay' : 'Confirm booking'}
        </button>
      ) : null}
      {payable ? (
        <a className="button primary" href={r.payment!.checkoutUrl!}>
          Pay now
        </a>
      ) : null}
      {r.status === 'confirmed' ? (
        <IcsLink
          id={r.id}
          start={r.startTime}
          end={r.endTime}
          summary={`${what} · ${r.organisation.name}`}
          manageUrl={manageUrl}
        />
      ) : null}
      {r.organisation.slug && r.resourceTypeId ? (
        <button type="button" className="secondary" onClick={() => onMode('reschedule')}>
          Change time
        </button>
      ) : null}
      <button type="button" className="secondary danger" onClick={() => onMode('cancel')}>
        Cancel booking
      </button>
    </div>
  );
}

export function CancelStep(props: {
  reservation: ManagedReservation;
  actions: ManageActions;
  onKeep: () => void;
}) {
  const { reservation: r, actions, onKeep } = props;
  return (
    <ConfirmBox
      title="Cancel this booking?"
      confirm="Yes, cancel it"
      keep="Keep my booking"
      pending={actions.cancel.isPending}
      onConfirm={() => actions.cancel.mutate()}
      onKeep={onKeep}
    >
      {r.seriesId !== null ? (
        <p>Only this date is cancelled: the other dates of the series stay booked.</p>
      ) : r.payment?.status === 'paid' ? (
        <p>Your payment will be refunded in full.</p>
      ) : null}
    </ConfirmBox>
  );
}

export function RescheduleStep(props: {
  slug: string;
  resourceTypeId: number;
  reservation: ManagedReservation;
  actions: ManageActions;
  zone: string;
  time: BookableTime | null;
  onTime: (time: BookableTime) => void;
  onKeep: () => void;
}) {
  const { slug, resourceTypeId, reservation: r, zone, time, onTime, onKeep } = props;
  const { reschedule } = props.actions;
  return (
    <section aria-labelledby="move-heading">
      <h2 id="move-heading">Pick a new time</h2>
      <SlotPicker
        slug={slug}
        target={{ resourceTypeId }}
        durationMinutes={durationMinutes(r.startTime, r.endTime)}
        zone={zone}
        selected={time?.start ?? null}
        onSelect={onTime}
      />
      {reschedule.isError ? (
        <Refusal
          error={reschedule.error}
          alternatives={alternativesOf(reschedule.error)}
          zone={zone}
          onPick={(a) => reschedule.mutate(a)}
        />
      ) : null}
      <div className="actions sticky">
        {time ? (
          <button
            type="button"
            className="primary"
            disabled={reschedule.isPending}
            onClick={() => reschedule.mutate(time)}
          >
            Move to {formatDateTime(time.start, zone)}
          </button>
        ) : null}
        <button type="button" className="secondary" onClick={onKeep}>
          Keep the current time
        </button>
      </div>
    </section>
  );
}
