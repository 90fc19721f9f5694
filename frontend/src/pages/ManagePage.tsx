import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useParams } from 'react-router';
import { ApiError } from '../api/client.js';
import { usePublicCatalogue } from '../api/hooks.js';
import { useManagedReservation, useWaitlistEntry } from '../api/public-hooks.js';
import type { ManagedReservation } from '../api/types.js';
import { Branding } from '../components/Branding.js';
import { ManageSeries } from '../components/ManageSeries.js';
import { Summary } from '../components/Reservation.js';
import { type WaitlistEntry, WaitlistEntryView } from '../components/Waitlist.js';
import { ZonePicker } from '../components/ZonePicker.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { CustomerLanguage, useLanguageLink, useLocale } from '../i18n/customer-language.js';
import { type BookableTime, formatDateTime, visitorZone } from '../lib/time.js';
import { ActionButtons, CancelStep, type ManageMode, RescheduleStep } from './manage/ManageActions.js';
import { ManageNotices } from './manage/ManageNotices.js';
import type { Outcome } from './manage/manage-outcome.js';
import { useManageActions } from './manage/use-manage-actions.js';

/** Where the page was sent from: the payment provider's return adds `payment`. */
export interface ManageState {
  payment?: 'complete' | 'cancelled';
}

export function ManagePage() {
  const { token = '' } = useParams();
  const reservation = useManagedReservation(token);
  // No reservation at this link: it may be a waitlist entry's, before its offer. A held
  // reservation may be a waitlist offer (the entry's link names its hold): say so.
  const missing = reservation.error instanceof ApiError && reservation.error.status === 404;
  // While waiting, look for the offer now and then (the entry view then shows the hold).
  const entry = useWaitlistEntry(token, missing || reservation.data?.status === 'held', missing);
  const organisation = reservation.data?.organisation ?? (missing ? entry.data?.organisation : undefined);
  const settled = !reservation.isPending && !(missing && entry.isPending);
  return (
    <CustomerLanguage
      organisationDefault={organisation ? organisation.defaultLocale : settled ? null : undefined}
    >
      <ManagePageIn token={token} reservation={reservation} entry={entry} missing={missing} />
    </CustomerLanguage>
  );
}

function ManagePageIn(props: {
  token: string;
  reservation: ReturnType<typeof useManagedReservation>;
  entry: ReturnType<typeof useWaitlistEntry>;
  missing: boolean;
}) {
  const { token, reservation, entry, missing } = props;
  const state = (useLocation().state ?? {}) as ManageState;
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  if (reservation.isPending || (missing && entry.isPending))
    return <p className="loading">{t('manage.loading')}</p>;
  if (missing && entry.isSuccess) return <WaitlistEntryView token={token} entry={entry.data} />;
  if (reservation.isError)
    return (
      <main className="page">
        <h1>{t('manage.notFound')}</h1>
        <p role="alert">{errorText(reservation.error)}</p>
      </main>
    );
  const offer = reservation.data.status === 'held' && entry.data?.status === 'offered' ? entry.data : null;
  return <Managed token={token} reservation={reservation.data} fromPayment={state.payment} offer={offer} />;
}

/** The page's step (viewing, cancelling, moving), the time picked to move to and the last change made. */
function useManageSteps(token: string, r: ManagedReservation) {
  const [mode, setMode] = useState<ManageMode>('view');
  const [time, setTime] = useState<BookableTime | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const actions = useManageActions(token, r, (done) => {
    setOutcome(done);
    setMode('view');
    if (done) setTime(null);
  });
  return { mode, setMode, time, setTime, outcome, actions };
}

type ManageSteps = ReturnType<typeof useManageSteps>;

function Managed(props: {
  token: string;
  reservation: ManagedReservation;
  fromPayment?: ManageState['payment'];
  /** The waitlist entry whose offer this held reservation is. */
  offer?: WaitlistEntry | null;
}) {
  const { token, reservation: r, fromPayment, offer } = props;
  const organisation = r.organisation;
  const [zone, setZone] = useState(visitorZone);
  const steps = useManageSteps(token, r);
  const slug = organisation.slug;
  const catalogue = usePublicCatalogue(slug);
  const type = catalogue.data?.resourceTypes.find((rt) => rt.id === r.resourceTypeId);
  const { t } = useTranslation();
  const link = useLanguageLink();
  const what = type?.name ?? t('manage.yourBooking');
  const active = r.status === 'held' || r.status === 'pending_payment' || r.status === 'confirmed';
  const manageUrl = `${location.origin}/manage/${token}`;

  return (
    <main className="page">
      <Branding organisation={organisation} title={t('manage.yourBooking')} />
      <ManageNotices
        reservation={r}
        fromPayment={fromPayment}
        outcome={steps.outcome}
        offer={offer}
        manageUrl={manageUrl}
        zone={zone}
      />
      <ManagedFacts reservation={r} what={what} zone={zone} onZone={setZone} />
      <ErrorsOf mutations={[steps.actions.confirm, steps.actions.cancel]} />
      <ManageStep
        reservation={r}
        steps={steps}
        what={what}
        paymentRequired={Boolean(type?.paymentRequired)}
        manageUrl={manageUrl}
        zone={zone}
        active={active}
      />
      {r.seriesId !== null && steps.mode !== 'reschedule' ? (
        <ManageSeries token={token} currentId={r.id} zone={zone} />
      ) : null}
      {!active && slug ? (
        <p>
          <a href={link(`/book/${slug}`)}>{t('common.makeNewBooking')}</a>
        </p>
      ) : null}
    </main>
  );
}

/** The step shown: the actions on a reservation still in force, cancelling it, or picking its new time. */
function ManageStep(props: {
  reservation: ManagedReservation;
  steps: ManageSteps;
  what: string;
  paymentRequired: boolean;
  manageUrl: string;
  zone: string;
  active: boolean;
}) {
  const { reservation: r, steps, what, paymentRequired, manageUrl, zone, active } = props;
  const { mode, setMode, time, setTime, actions } = steps;
  const slug = r.organisation.slug;
  return (
    <>
      {mode === 'view' && active ? (
        <ActionButtons
          reservation={r}
          actions={actions}
          what={what}
          paymentRequired={paymentRequired}
          manageUrl={manageUrl}
          onMode={setMode}
        />
      ) : null}
      {mode === 'cancel' ? (
        <CancelStep reservation={r} actions={actions} onKeep={() => setMode('view')} />
      ) : null}
      {mode === 'reschedule' && slug && r.resourceTypeId ? (
        <RescheduleStep
          slug={slug}
          resourceTypeId={r.resourceTypeId}
          reservation={r}
          actions={actions}
          zone={zone}
          time={time}
          onTime={setTime}
          onKeep={() => setMode('view')}
        />
      ) : null}
    </>
  );
}

/** What and when the reservation is, how long it is kept, and the zone its times are shown in. */
function ManagedFacts(props: {
  reservation: ManagedReservation;
  what: string;
  zone: string;
  onZone: (zone: string) => void;
}) {
  const { reservation: r, what, zone, onZone } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <>
      <Summary
        what={what}
        start={r.startTime}
        end={r.endTime}
        zone={zone}
        priceAmount={r.priceAmount}
        priceCurrency={r.priceCurrency}
      />
      {r.expiresAt && (r.status === 'held' || r.status === 'pending_payment') ? (
        <p className="hint">{t('manage.keptUntil', { when: formatDateTime(r.expiresAt, zone, locale) })}</p>
      ) : null}
      <ZonePicker zone={zone} organisationZone={r.organisation.timezone} onChange={onZone} />
    </>
  );
}

/** Each refused confirm or cancel, in words. */
function ErrorsOf({ mutations }: { mutations: { isError: boolean; error: unknown }[] }) {
  const { errorText } = useCustomerErrors();
  return (
    <>
      {mutations.map((m, i) =>
        m.isError ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: two fixed mutations
          <div role="alert" className="error" key={i}>
            <p>{errorText(m.error)}</p>
          </div>
        ) : null,
      )}
    </>
  );
}
