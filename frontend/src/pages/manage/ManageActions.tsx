// The manage page's buttons and the two steps they open: cancelling and picking a new time.
import { useTranslation } from 'react-i18next';
import { alternativesOf } from '../../api/errors.js';
import type { ManagedReservation } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { Refusal } from '../../components/Refusal.js';
import { IcsLink } from '../../components/Reservation.js';
import { SlotPicker } from '../../components/SlotPicker.js';
import { useLocale } from '../../i18n/customer-language.js';
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
  const { t } = useTranslation();
  return (
    <div className="actions">
      {r.status === 'held' ? (
        <button
          type="button"
          className="primary"
          disabled={confirm.isPending}
          onClick={() => confirm.mutate()}
        >
          {t(paymentRequired ? 'manage.confirmPay' : 'book.confirmBooking')}
        </button>
      ) : null}
      {payable ? (
        <a className="button primary" href={r.payment!.checkoutUrl!}>
          {t('manage.payNow')}
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
          {t('manage.changeTime')}
        </button>
      ) : null}
      <button type="button" className="secondary danger" onClick={() => onMode('cancel')}>
        {t('manage.cancel')}
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
  const { t } = useTranslation();
  return (
    <ConfirmBox
      title={t('manage.cancelTitle')}
      confirm={t('manage.cancelYes')}
      keep={t('manage.keep')}
      pending={actions.cancel.isPending}
      onConfirm={() => actions.cancel.mutate()}
      onKeep={onKeep}
    >
      {r.seriesId !== null ? (
        <p>{t('manage.onlyThisDate')}</p>
      ) : r.payment?.status === 'paid' ? (
        <p>{t('manage.willRefund')}</p>
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
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <section aria-labelledby="move-heading">
      <h2 id="move-heading">{t('manage.pickNew')}</h2>
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
            {t('manage.moveTo', { when: formatDateTime(time.start, zone, locale) })}
          </button>
        ) : null}
        <button type="button" className="secondary" onClick={onKeep}>
          {t('manage.keepTime')}
        </button>
      </div>
    </section>
  );
}
