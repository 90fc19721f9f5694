import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { useLocation, useParams } from 'react-router';
import { ApiError, api, idempotencyKey, unwrap } from '../api/client.js';
import { alternativesOf, errorText } from '../api/errors.js';
import { usePublicCatalogue } from '../api/hooks.js';
import { queryKeys } from '../api/queryKeys.js';
import type { ManagedReservation } from '../api/types.js';
import { ManageLinkNote } from '../components/BookingDone.js';
import { Branding } from '../components/Branding.js';
import { ConfirmBox } from '../components/ConfirmBox.js';
import { ManageSeries } from '../components/ManageSeries.js';
import { Refusal } from '../components/Refusal.js';
import { IcsLink, STATUS_WORDS, Summary } from '../components/Reservation.js';
import { SlotPicker } from '../components/SlotPicker.js';
import { type WaitlistEntry, WaitlistEntryView } from '../components/Waitlist.js';
import { ZonePicker } from '../components/ZonePicker.js';
import { type BookableTime, durationMinutes, formatDateTime, visitorZone } from '../lib/time.js';
import { type Outcome, OutcomeNotice } from './manage-outcome.js';

/** Where the page was sent from: the payment provider's return adds `payment`. */
export interface ManageState {
  payment?: 'complete' | 'cancelled';
}

export function ManagePage() {
  const { token = '' } = useParams();
  const state = (useLocation().state ?? {}) as ManageState;
  const queryKey = queryKeys.managed(token);
  const reservation = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/api/public/reservations/{token}', { params: { path: { token } } })),
    // A payment just made is confirmed by the provider's webhook: look again until it lands.
    refetchInterval: (q) => (q.state.data?.status === 'pending_payment' ? 3000 : false),
  });
  // No reservation at this link: it may be a waitlist entry's, before its offer. A held
  // reservation may be a waitlist offer (the entry's link names its hold): say so.
  const missing = reservation.error instanceof ApiError && reservation.error.status === 404;
  const entry = useQuery({
    queryKey: queryKeys.waitlist(token),
    enabled: missing || reservation.data?.status === 'held',
    queryFn: () => unwrap(api.GET('/api/public/waitlist/{token}', { params: { path: { token } } })),
    // While waiting, look for the offer now and then (the entry view then shows the hold).
    refetchInterval: (q) => (missing && q.state.data?.status === 'waiting' ? 30_000 : false),
  });
  if (reservation.isPending || (missing && entry.isPending))
    return <p className="loading">Loading your booking…</p>;
  if (missing && entry.isSuccess) return <WaitlistEntryView token={token} entry={entry.data} />;
  if (reservation.isError)
    return (
      <main className="page">
        <h1>Booking not found</h1>
        <p role="alert">{errorText(reservation.error)}</p>
      </main>
    );
  const offer = reservation.data.status === 'held' && entry.data?.status === 'offered' ? entry.data : null;
  return <Managed token={token} reservation={reservation.data} fromPayment={state.payment} offer={offer} />;
}

/** A hold or unpaid booking whose time ran out: looked at again when it does, so the page never offers it. */
function useRefetchAtExpiry(r: ManagedReservation, refetch: () => void) {
  const waiting = r.status === 'held' || r.status === 'pending_payment';
  useEffect(() => {
    if (!waiting || !r.expiresAt) return;
    const wait = Math.min(Math.max(Date.parse(r.expiresAt) - Date.now() + 1000, 0), 2 ** 31 - 1);
    const timer = setTimeout(refetch, wait);
    return () => clearTimeout(timer);
  }, [waiting, r.expiresAt, refetch]);
}

const holdExpired = (error: unknown) => error instanceof ApiError && error.code === 'HOLD_EXPIRED';

function Managed(props: {
  token: string;
  reservation: ManagedReservation;
  fromPayment?: ManageState['payment'];
  /** The waitlist entry whose offer this held reservation is. */
  offer?: WaitlistEntry | null;
}) {
  const { token, reservation: r, fromPayment, offer } = props;
  const queryClient = useQueryClient();
  const organisation = r.organisation;
  const [zone, setZone] = useState(visitorZone);
  const [mode, setMode] = useState<'view' | 'cancel' | 'reschedule'>('view');
  const [time, setTime] = useState<BookableTime | null>(null);
  const slug = organisation.slug;
  const catalogue = usePublicCatalogue(slug);
  const type = catalogue.data?.resourceTypes.find((t) => t.id === r.resourceTypeId);
  const what = type?.name ?? 'Your booking';
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refetch = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: queryKeys.managed(token) }),
    [queryClient, token],
  );
  useRefetchAtExpiry(r, refetch);
  const settle = (next: ManagedReservation, done: Outcome) => {
    queryClient.setQueryData(queryKeys.managed(token), next);
    if (next.seriesId !== null) void queryClient.invalidateQueries({ queryKey: queryKeys.series(token) });
    setOutcome(done);
    setMode('view');
    setTime(null);
  };
  // A hold that ran out is expired: shown so at once, and read again for the rest.
  const onRefused = (error: unknown) => {
    if (!holdExpired(error)) return;
    queryClient.setQueryData(queryKeys.managed(token), { ...r, status: 'expired' as const, expiresAt: null });
    setOutcome(null);
    setMode('view');
    refetch();
  };
  const confirm = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/confirm', { params: { path: { token } } })),
    onSuccess: (next) => {
      if (next.status === 'pending_payment' && next.payment?.checkoutUrl)
        location.assign(next.payment.checkoutUrl);
      else settle(next, { kind: 'confirmed' });
    },
    onError: onRefused,
  });
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/cancel', { params: { path: { token } } })),
    onSuccess: (next) => settle(next, { kind: 'cancelled', before: r, after: next }),
    onError: onRefused,
  });
  const reschedule = useMutation({
    mutationFn: (at: BookableTime) =>
      unwrap(
        api.POST('/api/public/reservations/{token}/reschedule', {
          params: { path: { token }, header: { 'idempotency-key': idempotencyKey() } },
          body: { startTime: at.start, endTime: at.end },
        }),
      ),
    onSuccess: (next) => settle(next, { kind: 'moved', start: next.startTime }),
  });

  const active = r.status === 'held' || r.status === 'pending_payment' || r.status === 'confirmed';
  const payable =
    r.status === 'pending_payment' &&
    r.payment?.checkoutUrl &&
    (r.payment.status === 'requires_payment' || r.payment.status === 'failed');
  const manageUrl = `${location.origin}/manage/${token}`;

  return (
    <main className="page">
      <Branding organisation={organisation} title="Your booking" />
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
      <Summary
        what={what}
        start={r.startTime}
        end={r.endTime}
        zone={zone}
        priceAmount={r.priceAmount}
        priceCurrency={r.priceCurrency}
      />
      {r.expiresAt && (r.status === 'held' || r.status === 'pending_payment') ? (
        <p className="hint">Kept for you until {formatDateTime(r.expiresAt, zone)}.</p>
      ) : null}
      <ZonePicker zone={zone} organisationZone={organisation.timezone} onChange={setZone} />
      {[confirm, cancel].map((m, i) =>
        m.isError ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: two fixed mutations
          <div role="alert" className="error" key={i}>
            <p>{errorText(m.error)}</p>
          </div>
        ) : null,
      )}
      {mode === 'view' && active ? (
        <div className="actions">
          {r.status === 'held' ? (
            <button
              type="button"
              className="primary"
              disabled={confirm.isPending}
              onClick={() => confirm.mutate()}
            >
              {type?.paymentRequired ? 'Confirm and pay' : 'Confirm booking'}
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
              summary={`${what} · ${organisation.name}`}
              manageUrl={manageUrl}
            />
          ) : null}
          {slug && r.resourceTypeId ? (
            <button type="button" className="secondary" onClick={() => setMode('reschedule')}>
              Change time
            </button>
          ) : null}
          <button type="button" className="secondary danger" onClick={() => setMode('cancel')}>
            Cancel booking
          </button>
        </div>
      ) : null}
      {mode === 'cancel' ? (
        <ConfirmBox
          title="Cancel this booking?"
          confirm="Yes, cancel it"
          keep="Keep my booking"
          pending={cancel.isPending}
          onConfirm={() => cancel.mutate()}
          onKeep={() => setMode('view')}
        >
          {r.seriesId !== null ? (
            <p>Only this date is cancelled: the other dates of the series stay booked.</p>
          ) : r.payment?.status === 'paid' ? (
            <p>Your payment will be refunded in full.</p>
          ) : null}
        </ConfirmBox>
      ) : null}
      {mode === 'reschedule' && slug && r.resourceTypeId ? (
        <section aria-labelledby="move-heading">
          <h2 id="move-heading">Pick a new time</h2>
          <SlotPicker
            slug={slug}
            target={{ resourceTypeId: r.resourceTypeId }}
            durationMinutes={durationMinutes(r.startTime, r.endTime)}
            zone={zone}
            selected={time?.start ?? null}
            onSelect={setTime}
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
            <button type="button" className="secondary" onClick={() => setMode('view')}>
              Keep the current time
            </button>
          </div>
        </section>
      ) : null}
      {r.seriesId !== null && mode !== 'reschedule' ? (
        <ManageSeries token={token} currentId={r.id} zone={zone} />
      ) : null}
      {!active && slug ? (
        <p>
          <a href={`/book/${slug}`}>Make a new booking</a>
        </p>
      ) : null}
    </main>
  );
}
