// Reservations of the active organisation: a week view in the organisation's zone with
// filters (type, resource, status), and a reservation's detail with cancel and reschedule.
// A refused time offers the API's alternatives as buttons; staff may go past the type's rules.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Route, Routes, useParams, useSearchParams } from 'react-router';
import { idempotencyKey, unwrap } from '../api/client.js';
import { alternativesOf, errorText } from '../api/errors.js';
import { formatPrice } from '../components/Reservation.js';
import { dayKey, formatDateTime, formatDay, formatTime, instantOf, localOf } from '../lib/time.js';
import { isStaff, useActiveOrganisation } from './active.js';
import { NoActive } from './Catalogue.js';
import { type Organisation, type Reservation, STATUSES, statusWords } from './records.js';
import { authed } from './session.js';
import { Field, LoadError, Loading, Select } from './ui.js';
import { addDays, byDayOfWeek, mondayOf, weekRange } from './week.js';

export default function Reservations() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return (
    <Routes>
      <Route index element={<Week org={org.active} />} />
      <Route path=":id" element={<Detail org={org.active} />} />
    </Routes>
  );
}

function useCatalogue() {
  const types = useQuery({
    queryKey: ['resource-types'],
    queryFn: () => unwrap(authed.GET('/api/resource-types')),
  });
  const resources = useQuery({
    queryKey: ['resources'],
    queryFn: () => unwrap(authed.GET('/api/resources')),
  });
  return {
    types: types.data ?? [],
    resources: resources.data ?? [],
    typeName: (id: number | null) => types.data?.find((t) => t.id === id)?.name ?? null,
    resourceName: (id: number | null) =>
      id === null ? null : (resources.data?.find((r) => r.id === id)?.name ?? `Resource ${id}`),
  };
}

/** Every reservation of the range, following the list's cursor (a week rarely needs a second page). */
async function listAll(query: Record<string, string | number>): Promise<Reservation[]> {
  const out: Reservation[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const answer = await unwrap(
      authed.GET('/api/reservations', {
        params: { query: { ...query, limit: 200, ...(cursor ? { cursor } : {}) } as never },
      }),
    );
    out.push(...answer.items);
    if (!answer.nextCursor) break;
    cursor = answer.nextCursor;
  }
  return out;
}

function Week(props: { org: Organisation }) {
  const { org } = props;
  const zone = org.timezone;
  const [params, setParams] = useSearchParams();
  const monday = mondayOf(params.get('week') ?? dayKey(Date.now(), zone));
  const filter = {
    resourceTypeId: params.get('type') ?? '',
    resourceId: params.get('resource') ?? '',
    status: params.get('status') ?? '',
  };
  const setParam = (key: string, value: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );
  const catalogue = useCatalogue();
  const range = weekRange(monday);
  const query = {
    ...range,
    ...(filter.resourceTypeId ? { resourceTypeId: Number(filter.resourceTypeId) } : {}),
    ...(filter.resourceId ? { resourceId: Number(filter.resourceId) } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
  const list = useQuery({ queryKey: ['reservations', org.id, query], queryFn: () => listAll(query) });
  const days = byDayOfWeek(list.data ?? [], monday, zone);
  const count = [...days.values()].reduce((n, d) => n + d.length, 0);
  return (
    <main className="page">
      <h1>Reservations</h1>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Select name="type" label="Type" value={filter.resourceTypeId} onChange={(v) => setParam('type', v)}>
          <option value="">All types</option>
          {catalogue.types.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </Select>
        <Select
          name="resource"
          label="Resource"
          value={filter.resourceId}
          onChange={(v) => setParam('resource', v)}
        >
          <option value="">All resources</option>
          {catalogue.resources.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </Select>
        <Select name="status" label="Status" value={filter.status} onChange={(v) => setParam('status', v)}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {statusWords(s)}
            </option>
          ))}
        </Select>
      </form>
      <div className="week-nav">
        <button type="button" className="secondary" onClick={() => setParam('week', addDays(monday, -7))}>
          <span aria-hidden="true">‹\u00a0</span>Previous week
        </button>
        <h2 id="week-heading" aria-live="polite">
          {formatDay(monday)} – {formatDay(addDays(monday, 6))}
        </h2>
        <button type="button" className="secondary" onClick={() => setParam('week', addDays(monday, 7))}>
          Next week<span aria-hidden="true">\u00a0›</span>
        </button>
      </div>
      <p className="hint">
        Times in {zone.replaceAll('_', ' ')}.{' '}
        {params.get('week') ? (
          <button type="button" className="link" onClick={() => setParam('week', '')}>
            This week
          </button>
        ) : null}
      </p>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      {list.data && count === 0 ? <p className="empty">No reservations this week.</p> : null}
      <ul className="week" aria-labelledby="week-heading">
        {[...days.entries()].map(([day, items]) => (
          <li key={day} data-day={day}>
            <h3>{formatDay(day)}</h3>
            {items.length ? (
              <ul>
                {items.map((r) => (
                  <li key={r.id}>
                    <Link className={`booking status-${r.status}`} to={`/app/reservations/${r.id}`}>
                      {formatTime(r.startTime, zone)}–{formatTime(r.endTime, zone)} {r.customer.name ?? ''}
                      <span className="hint">
                        {[catalogue.typeName(r.resourceTypeId), catalogue.resourceName(r.resourceId)]
                          .filter(Boolean)
                          .join(' · ')}
                        {r.status !== 'confirmed' ? ` · ${statusWords(r.status)}` : ''}
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="hint">Nothing booked</p>
            )}
          </li>
        ))}
      </ul>
    </main>
  );
}

function Detail(props: { org: Organisation }) {
  const { org } = props;
  const zone = org.timezone;
  const id = Number(useParams().id);
  const queryClient = useQueryClient();
  const catalogue = useCatalogue();
  const reservation = useQuery({
    queryKey: ['reservation', id],
    queryFn: () => unwrap(authed.GET('/api/reservations/{id}', { params: { path: { id } } })),
  });
  const [mode, setMode] = useState<'view' | 'cancel' | 'reschedule'>('view');
  const [newStart, setNewStart] = useState('');
  const done = (r: Reservation) => {
    queryClient.setQueryData(['reservation', id], r);
    setMode('view');
    return queryClient.invalidateQueries({ queryKey: ['reservations'] });
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
  const what = [catalogue.typeName(r.resourceTypeId), catalogue.resourceName(r.resourceId)]
    .filter(Boolean)
    .join(' · ');
  return (
    <main className="page">
      <p>
        <Link to={`/app/reservations?week=${mondayOf(dayKey(r.startTime, zone))}`}>Back to the week</Link>
      </p>
      <h1>Reservation {r.id}</h1>
      <dl className="summary">
        <dt>Status</dt>
        <dd className={`status-${r.status}`}>{statusWords(r.status)}</dd>
        <dt>What</dt>
        <dd>{what || '—'}</dd>
        <dt>When</dt>
        <dd>
          {formatDateTime(r.startTime, zone)} – {formatTime(r.endTime, zone)}{' '}
          <span className="hint">({zone.replaceAll('_', ' ')})</span>
        </dd>
        {Object.entries(r.customer).map(([key, value]) => (
          <FragmentRow key={key} term={customerWords[key] ?? key} value={value} />
        ))}
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

const customerWords: Record<string, string> = { name: 'Customer', email: 'Email', phone: 'Phone' };
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
