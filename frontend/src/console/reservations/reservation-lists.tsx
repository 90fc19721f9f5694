// The reservations screen: the week, or the upcoming, past and cancelled lists, each narrowed
// by type, resource and a search of the customer's name, email or the reference. Every row
// names its reference; "New booking" books a walk-in or phone customer.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { queryKeys } from '../../api/queryKeys.js';
import type { Organisation, Reservation } from '../../api/types.js';
import { formatDateTime, formatTime } from '../../lib/time.js';
import { LoadError, Loading, Select } from '../ui.js';
import {
  LIVE_STATUSES,
  type ListFilter,
  listAll,
  listPage,
  STATUSES,
  statusWords,
  useCatalogue,
  whatOf,
} from './reservation-data.js';
import { Week } from './reservation-week.js';

const VIEWS = { week: 'Week', upcoming: 'Upcoming', past: 'Past', cancelled: 'Cancelled' } as const;
type View = keyof typeof VIEWS;
const DAY = 86_400_000;
/** How far back the past and cancelled lists reach at first (a search reaches all the way). */
const LOOK_BACK_DAYS = 30;

/** The screen's state, kept in its address: the view, the filters, the status and the week. */
function useReservationParams() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('view') ?? 'week';
  const view: View = Object.hasOwn(VIEWS, asked) ? (asked as View) : 'week';
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
  const filter: ListFilter = {
    ...(params.get('type') ? { resourceTypeId: Number(params.get('type')) } : {}),
    ...(params.get('resource') ? { resourceId: Number(params.get('resource')) } : {}),
    ...(params.get('q') ? { q: params.get('q')! } : {}),
  };
  const status = params.get('status') ?? '';
  const viewLink = (v: View) => {
    const next = new URLSearchParams(params);
    if (v === 'week') next.delete('view');
    else next.set('view', v);
    if (v !== 'week') next.delete('status');
    return `/app/reservations?${next}`;
  };
  return { params, view, setParam, filter, status, viewLink };
}

type ReservationParams = ReturnType<typeof useReservationParams>;

export function ReservationsHome(props: { org: Organisation }) {
  const { org } = props;
  const { params, view, setParam, filter, status, viewLink } = useReservationParams();
  return (
    <main className="page">
      <div className="title-row">
        <h1>Reservations</h1>
        <Link className="button primary" to="/app/reservations/new">
          New booking
        </Link>
      </div>
      <ViewTabs view={view} viewLink={viewLink} />
      <Search key={filter.q ?? ''} q={filter.q ?? ''} onSearch={(q) => setParam('q', q)} />
      <Filters params={params} view={view} status={status} setParam={setParam} />
      {view === 'week' ? (
        <Week
          org={org}
          week={params.get('week')}
          filter={{ ...filter, ...(status ? { status } : {}) }}
          setWeek={(week) => setParam('week', week)}
        />
      ) : (
        <List key={view} org={org} view={view} filter={filter} />
      )}
    </main>
  );
}

function ViewTabs(props: Pick<ReservationParams, 'view' | 'viewLink'>) {
  const { view, viewLink } = props;
  return (
    <nav aria-label="Reservation views">
      <ul className="view-tabs">
        {(Object.keys(VIEWS) as View[]).map((v) => (
          <li key={v}>
            <Link to={viewLink(v)} aria-current={v === view ? 'page' : undefined}>
              {VIEWS[v]}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Type and resource; the status in the week only (each list is of its own statuses). */
function Filters(props: Pick<ReservationParams, 'params' | 'view' | 'status' | 'setParam'>) {
  const { params, view, status, setParam } = props;
  const catalogue = useCatalogue();
  return (
    <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <Select name="type" label="Type" value={params.get('type') ?? ''} onChange={(v) => setParam('type', v)}>
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
        value={params.get('resource') ?? ''}
        onChange={(v) => setParam('resource', v)}
      >
        <option value="">All resources</option>
        {catalogue.resources.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </Select>
      {view === 'week' ? (
        <Select name="status" label="Status" value={status} onChange={(v) => setParam('status', v)}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {statusWords(s)}
            </option>
          ))}
        </Select>
      ) : null}
    </form>
  );
}

function Search(props: { q: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(props.q);
  return (
    <search className="search">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          props.onSearch(text.trim());
        }}
      >
        <label htmlFor="f-q">Customer name, email or reference</label>
        <div className="search-row">
          <input id="f-q" type="search" value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit" className="secondary">
            Search
          </button>
          {props.q ? (
            <button type="button" className="link" onClick={() => props.onSearch('')}>
              Clear the search
            </button>
          ) : null}
        </div>
      </form>
    </search>
  );
}

/** The query of a list view from `now`: upcoming from now on, past and cancelled looking back. */
function listQuery(view: Exclude<View, 'week'>, filter: ListFilter, now: number, days: number) {
  const since = filter.q ? {} : { from: new Date(now - days * DAY).toISOString() };
  const at = new Date(now).toISOString();
  if (view === 'upcoming') return { ...filter, status: LIVE_STATUSES.join(','), from: at };
  if (view === 'past') return { ...filter, status: 'confirmed', to: at, ...since };
  return { ...filter, status: 'cancelled', ...since };
}

function List(props: { org: Organisation; view: Exclude<View, 'week'>; filter: ListFilter }) {
  const { org, view, filter } = props;
  // Whole minutes: the query keeps its key while the screen is open.
  const [now] = useState(() => Math.floor(Date.now() / 60_000) * 60_000);
  const [days, setDays] = useState(LOOK_BACK_DAYS);
  const query = listQuery(view, filter, now, days);
  // Past: newest first, so the whole range is read and turned round.
  const past = useQuery({
    queryKey: queryKeys.reservationList(org.id, query),
    queryFn: async () => (await listAll(query)).reverse(),
    enabled: view === 'past',
  });
  const paged = useInfiniteQuery({
    queryKey: queryKeys.reservationPages(org.id, query),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => listPage(query, pageParam),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: view !== 'past',
  });
  const source = view === 'past' ? past : paged;
  const items = view === 'past' ? (past.data ?? []) : (paged.data?.pages.flatMap((p) => p.items) ?? []);
  const reach = filter.q ? '' : view === 'upcoming' ? '' : ` (the last ${days} days)`;
  return (
    <section aria-labelledby="list-heading">
      <h2 id="list-heading">
        {VIEWS[view]}
        {reach}
      </h2>
      <p className="hint">Times in {org.timezone.replaceAll('_', ' ')}.</p>
      {source.isPending ? <Loading /> : null}
      {source.isError ? <LoadError error={source.error} /> : null}
      {!source.isPending && items.length === 0 ? (
        <p className="empty">{filter.q ? 'No reservation matches.' : 'None.'}</p>
      ) : null}
      {items.length ? (
        <ul className="record-list reservation-list">
          {items.map((r) => (
            <ReservationRow key={r.id} reservation={r} zone={org.timezone} />
          ))}
        </ul>
      ) : null}
      {view !== 'past' && paged.hasNextPage ? (
        <button
          type="button"
          className="secondary"
          disabled={paged.isFetchingNextPage}
          onClick={() => paged.fetchNextPage()}
        >
          More
        </button>
      ) : null}
      {view !== 'upcoming' && !filter.q ? (
        <button type="button" className="secondary" onClick={() => setDays((d) => d + LOOK_BACK_DAYS)}>
          {LOOK_BACK_DAYS} days further back
        </button>
      ) : null}
    </section>
  );
}

function ReservationRow(props: { reservation: Reservation; zone: string }) {
  const { reservation: r, zone } = props;
  const catalogue = useCatalogue();
  const what = whatOf(r, catalogue);
  return (
    <li data-reference={r.reference}>
      <div>
        <Link to={`/app/reservations/${r.id}`}>
          {formatDateTime(r.startTime, zone)}–{formatTime(r.endTime, zone)}
          {r.customer.name ? ` · ${r.customer.name}` : ''}
        </Link>
        <span className="hint">
          <span className="reference">{r.reference}</span>
          {[r.customer.email, ...what, r.status !== 'confirmed' ? statusWords(r.status) : null]
            .filter(Boolean)
            .map((part) => ` · ${part}`)
            .join('')}
        </span>
      </div>
    </li>
  );
}
