// Reservations of the active organisation: the week and the lists (reservation-lists.tsx), a
// new booking for a walk-in or phone customer (reservation-new.tsx), and a reservation's
// detail (the customer's answers: reservation-customer.tsx) with cancel and reschedule. A
// refused time offers the API's alternatives as buttons; staff may go past the type's rules.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Route, Routes, useLocation, useParams } from 'react-router';
import { idempotencyKey, unwrap } from '../../api/client.js';
import { alternativesOf, errorText } from '../../api/errors.js';
import { useActiveOrganisation } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Reservation } from '../../api/types.js';
import { formatPrice } from '../../components/Reservation.js';
import { dayKey, formatDateTime, formatTime, instantOf, localOf } from '../../lib/time.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { isStaff } from '../organisations/roles.js';
import { Field, LoadError, Loading } from '../ui.js';
import { mondayOf } from '../week.js';
import { CustomerRows } from './reservation-customer.js';
import { statusWords, useCatalogue } from './reservation-data.js';
import { ReservationsHome } from './reservation-lists.js';
import { NewBooking } from './reservation-new.js';

export default function Reservations() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return (
    <Routes>
      <Route index element={<ReservationsHome org={org.active} />} />
      <Route path="new" element={<NewBooking org={org.active} />} />
      <Route path=":id" element={<Detail org={org.active} />} />
    </Routes>
  );
}

function Detail(props: { org: Organisation }) {
  const { org } = props;
  const zone = org.timezone;
  const id = Number(useParams().id);
  const booked = (useLocation().state as { booked?: boolean } | null)?.booked === true;
  const queryClient = useQueryClient();
  const catalogue = useCatalogue();
  const reservation = useQuery({
    queryKey: queryKeys.reservation(id),
    queryFn: () => unwrap(authed.GET('/api/reservations/{id}', { params: { path: { id } } })),
  });
  const [mode, setMode] = useState<'view' | 'cancel' | 'reschedule'>('view');
  const [newStart, setNewStart] = useState('');
  const done = (r: Reservation) => {
    queryClient.setQueryData(queryKeys.reservation(id), r);
    setMode('view');
    return queryClient.invalidateQueries({ queryKey: queryKeys.reservations() });
  };
  const cancel = useMutation({
    mutationFn: (overrideRules: boolean) =>
      unwrap(
        authed.POST('/api/reservations/{id}/cancel', {
          params: { path: { id } },
          body: overrideRules ? { overrideRules } : {},
        }),
      ),
    onSuccess: done,
  });
  const reschedule = useMutation({
    mutationFn: (to: { start: string; end: string; resourceId: number | null; overrideRules?: boolean }) =>
      unwrap(
        authed.POST('/api/reservations/{id}/reschedule', {
          params: { path: { id }, header: { 'idempotency-key': idempotencyKey() } },
          body: {
            startTime: to.start,
            endTime: to.end,
            ...(to.resourceId !== null && to.resourceId !== reservation.data?.resourceId
              ? { resourceId: to.resourceId }
              : {}),
            ...(to.overrideRules ? { overrideRules: true } : {}),
          },
        }),
      ) as Promise<Reservation>,
    onSuccess: done,
  });
  if (reservation.isPending) return <Loading />;
  if (reservation.isError)
    return (
      <main className="page">
        <LoadError error={reservation.error} />
        <Link to="/app/reservations">All reservations</Link>
      </main>
    );
  const r = reservation.data;
  const live = r.status === 'held' || r.status === 'pending_payment' || r.status === 'confirmed';
  const length = Date.parse(r.endTime) - Date.parse(r.startTime);
  const typed = instantOf(newStart, zone);
  const target = typed
    ? { start: typed, end: new Date(Date.parse(typed) + length).toISOString(), resourceId: r.resourceId }
    : null;
  const ruleRefusal = (e: unknown) =>
    isStaff(org.role) && e instanceof Error && 'code' in e && e.code === 'BOOKING_RULE_VIOLATED';
  const type = catalogue.types.find((t) => t.id === r.resourceTypeId);
  const what = [catalogue.typeName(r.resourceTypeId), catalogue.resourceName(r.resourceId)]
    .filter(Boolean)
    .join(' · ');
  return (
    <main className="page">
      <p>
        <Link to={`/app/reservations?week=${mondayOf(dayKey(r.startTime, zone))}`}>Back to the week</Link>
      </p>
      <h1>Reservation {r.reference}</h1>
      {booked && mode === 'view' && !cancel.isSuccess && !reschedule.isSuccess ? (
        <p className="notice" role="status">
          Booked. The customer is told by email.
        </p>
      ) : null}
      <dl className="summary">
        <dt>Reference</dt>
        <dd id="reservation-reference">{r.reference}</dd>
        <dt>Status</dt>
        <dd className={`status-${r.status}`}>{statusWords(r.status)}</dd>
        <dt>What</dt>
        <dd>{what || '—'}</dd>
        <dt>When</dt>
        <dd>
          {formatDateTime(r.startTime, zone)} – {formatTime(r.endTime, zone)}{' '}
          <span className="hint">({zone.replaceAll('_', ' ')})</span>
        </dd>
        <CustomerRows
          customer={r.customer}
          questions={catalogue.typesLoaded ? (type?.questions ?? []) : null}
        />
        {r.notes ? <FragmentRow term="Notes" value={r.notes} /> : null}
        {r.priceAmount != null && r.priceCurrency ? (
          <FragmentRow term="Price" value={formatPrice(r.priceAmount, r.priceCurrency)} />
        ) : null}
        {r.payment ? <FragmentRow term="Payment" value={r.payment.status.replace('_', ' ')} /> : null}
        <FragmentRow
          term="Booked"
          value={`${formatDateTime(r.createdAt, zone)} (${sourceWords[r.source]})`}
        />
        {r.cancelledAt ? <FragmentRow term="Cancelled" value={formatDateTime(r.cancelledAt, zone)} /> : null}
      </dl>
      {(cancel.isSuccess || reschedule.isSuccess) && mode === 'view' ? (
        <p className="notice" role="status">
          {cancel.isSuccess ? 'The reservation is cancelled.' : 'The reservation was moved.'}
        </p>
      ) : null}
      {live && mode === 'view' ? (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setNewStart(localOf(r.startTime, zone));
              reschedule.reset();
              setMode('reschedule');
            }}
          >
            Reschedule
          </button>
          <button
            type="button"
            className="secondary danger"
            onClick={() => {
              cancel.reset();
              setMode('cancel');
            }}
          >
            Cancel reservation
          </button>
        </div>
      ) : null}
      {mode === 'cancel' ? (
        <section className="confirm-box" aria-labelledby="cancel-heading">
          <h2 id="cancel-heading">Cancel this reservation?</h2>
          <p>The customer is told by email; a paid booking is refunded as the type's rules say.</p>
          {cancel.isError ? (
            <div role="alert" className="error">
              <p>{errorText(cancel.error)}</p>
              {ruleRefusal(cancel.error) ? (
                <button type="button" className="secondary danger" onClick={() => cancel.mutate(true)}>
                  Cancel anyway, past the rules
                </button>
              ) : null}
            </div>
          ) : null}
          <div className="actions">
            <button
              type="button"
              className="primary danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate(false)}
            >
              Yes, cancel it
            </button>
            <button type="button" className="secondary" onClick={() => setMode('view')}>
              Keep it
            </button>
          </div>
        </section>
      ) : null}
      {mode === 'reschedule' ? (
        <section className="confirm-box" aria-labelledby="move-heading">
          <h2 id="move-heading">Move to another time</h2>
          <form
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              if (target) reschedule.mutate(target);
            }}
          >
            <Field
              name="startTime"
              label={`New start (${zone.replaceAll('_', ' ')} time)`}
              type="datetime-local"
              value={newStart}
              error={newStart && !typed ? 'Enter a date and a time.' : undefined}
              hint={target ? `Until ${formatTime(target.end, zone)}, the same length as now.` : undefined}
              onChange={setNewStart}
            />
            {reschedule.isError ? (
              <div role="alert" className="error">
                <p>{errorText(reschedule.error)}</p>
                {alternativesOf(reschedule.error).length > 0 ? (
                  <>
                    <p>These times are free instead:</p>
                    <ul className="alternatives">
                      {alternativesOf(reschedule.error).map((a) => (
                        <li key={`${a.startTime}-${a.resourceId}`}>
                          <button
                            type="button"
                            className="time"
                            onClick={() =>
                              reschedule.mutate({
                                start: a.startTime,
                                end: a.endTime,
                                resourceId: a.resourceId,
                              })
                            }
                          >
                            {formatDateTime(a.startTime, zone)}
                            {a.resourceId !== null && a.resourceId !== r.resourceId
                              ? ` (${catalogue.resourceName(a.resourceId)})`
                              : ''}
                          </button>
                        </li>
                      ))}
                    </ul>
                  </>
                ) : null}
                {ruleRefusal(reschedule.error) && target ? (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => reschedule.mutate({ ...target, overrideRules: true })}
                  >
                    Move anyway, past the rules
                  </button>
                ) : null}
              </div>
            ) : null}
            <div className="actions">
              <button type="submit" className="primary" disabled={!target || reschedule.isPending}>
                Move it
              </button>
              <button type="button" className="secondary" onClick={() => setMode('view')}>
                Keep the current time
              </button>
            </div>
          </form>
        </section>
      ) : null}
    </main>
  );
}

const sourceWords: Record<Reservation['source'], string> = {
  api: 'by staff or the API',
  public_slug: 'on the booking page',
  public_token: 'with a booking link',
  mcp: 'by an agent',
};

function FragmentRow(props: { term: string; value: string }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>{props.value}</dd>
    </>
  );
}
