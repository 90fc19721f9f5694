import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation, useParams } from 'react-router';
import { api, idempotencyKey, type ManagedReservation, unwrap } from '../api/client.js';
import { alternativesOf, errorText } from '../api/errors.js';
import { Branding } from '../components/Branding.js';
import { IcsLink, Summary } from '../components/Reservation.js';
import { SlotPicker } from '../components/SlotPicker.js';
import { ZonePicker } from '../components/ZonePicker.js';
import { type BookableTime, durationMinutes, formatDateTime, visitorZone } from '../lib/time.js';
import { Refusal } from './BookPage.js';

const STATUS_WORDS: Record<ManagedReservation['status'], string> = {
  held: 'Held for you, not yet confirmed',
  pending_payment: 'Waiting for payment',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
  expired: 'Expired: the time was not confirmed or paid in time',
};

/** Where the page was sent from: the payment provider's return adds `payment`. */
export interface ManageState {
  payment?: 'complete' | 'cancelled';
}

export function ManagePage() {
  const { token = '' } = useParams();
  const state = (useLocation().state ?? {}) as ManageState;
  const queryKey = ['managed', token];
  const reservation = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/api/public/reservations/{token}', { params: { path: { token } } })),
    // A payment just made is confirmed by the provider's webhook: look again until it lands.
    refetchInterval: (q) => (q.state.data?.status === 'pending_payment' ? 3000 : false),
  });
  if (reservation.isPending) return <p className="loading">Loading your booking…</p>;
  if (reservation.isError)
    return (
      <main className="page">
        <h1>Booking not found</h1>
        <p role="alert">{errorText(reservation.error)}</p>
      </main>
    );
  return <Managed token={token} reservation={reservation.data} fromPayment={state.payment} />;
}

function Managed(props: {
  token: string;
  reservation: ManagedReservation;
  fromPayment?: ManageState['payment'];
}) {
  const { token, reservation: r, fromPayment } = props;
  const queryClient = useQueryClient();
  const organisation = r.organisation;
  const [zone, setZone] = useState(visitorZone);
  const [mode, setMode] = useState<'view' | 'cancel' | 'reschedule'>('view');
  const [time, setTime] = useState<BookableTime | null>(null);
  const slug = organisation.slug;
  const catalogue = useQuery({
    queryKey: ['catalogue', slug],
    enabled: slug !== null,
    queryFn: () => unwrap(api.GET('/api/public/organisations/{slug}', { params: { path: { slug: slug! } } })),
  });
  const type = catalogue.data?.resourceTypes.find((t) => t.id === r.resourceTypeId);
  const what = type?.name ?? 'Your booking';
  const settle = (next: ManagedReservation) => {
    queryClient.setQueryData(['managed', token], next);
    setMode('view');
    setTime(null);
  };
  const confirm = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/confirm', { params: { path: { token } } })),
    onSuccess: (next) => {
      if (next.status === 'pending_payment' && next.payment?.checkoutUrl)
        location.assign(next.payment.checkoutUrl);
      else settle(next);
    },
  });
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/cancel', { params: { path: { token } } })),
    onSuccess: settle,
  });
  const reschedule = useMutation({
    mutationFn: (at: BookableTime) =>
      unwrap(
        api.POST('/api/public/reservations/{token}/reschedule', {
          params: { path: { token }, header: { 'idempotency-key': idempotencyKey() } },
          body: { startTime: at.start, endTime: at.end },
        }),
      ),
    onSuccess: settle,
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
      {fromPayment === 'complete' && r.status === 'confirmed' ? (
        <p className="notice" role="status">
          Thank you: your payment was received and your booking is confirmed.
        </p>
      ) : null}
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
      <p className={`status status-${r.status}`}>
        <strong>Status:</strong> {STATUS_WORDS[r.status]}
      </p>
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
        <section className="confirm-box" aria-labelledby="cancel-heading">
          <h2 id="cancel-heading">Cancel this booking?</h2>
          {r.payment?.status === 'paid' ? <p>Your payment will be refunded in full.</p> : null}
          <div className="actions">
            <button
              type="button"
              className="primary danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate()}
            >
              Yes, cancel it
            </button>
            <button type="button" className="secondary" onClick={() => setMode('view')}>
              Keep my booking
            </button>
          </div>
        </section>
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
      {!active && slug ? (
        <p>
          <a href={`/book/${slug}`}>Make a new booking</a>
        </p>
      ) : null}
    </main>
  );
}
