// The reservations screen's week: each day of a week in the organisation's zone with what is
// booked on it (its reference on every entry), previous and next week, and Today.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { queryKeys } from '../../api/queryKeys.js';
import type { Organisation, Reservation } from '../../api/types.js';
import { dayKey, formatDay, formatTime } from '../../lib/time.js';
import { LoadError, Loading } from '../ui.js';
import { addDays, byDayOfWeek, mondayOf, weekRange } from '../week.js';
import { type ListFilter, listAll, statusWords, useCatalogue, whatOf } from './reservation-data.js';

export function Week(props: {
  org: Organisation;
  /** The week's Monday as the address names it; null: this week. */
  week: string | null;
  filter: ListFilter;
  setWeek: (week: string) => void;
}) {
  const { org, filter, setWeek } = props;
  const zone = org.timezone;
  const today = dayKey(Date.now(), zone);
  const monday = mondayOf(props.week ?? today);
  const query = { ...weekRange(monday), ...filter };
  const list = useQuery({
    queryKey: queryKeys.reservationWeek(org.id, query),
    queryFn: () => listAll(query),
  });
  const days = byDayOfWeek(list.data ?? [], monday, zone);
  const count = [...days.values()].reduce((n, d) => n + d.length, 0);
  return (
    <>
      <WeekNav monday={monday} today={today} setWeek={setWeek} />
      <p className="hint">Times in {zone.replaceAll('_', ' ')}.</p>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      {list.data && count === 0 ? (
        <p className="empty">{filter.q ? 'Nothing this week matches.' : 'No reservations this week.'}</p>
      ) : null}
      <ul className="week" aria-labelledby="week-heading">
        {[...days.entries()].map(([day, items]) => (
          <WeekDay key={day} day={day} items={items} today={today} zone={zone} />
        ))}
      </ul>
    </>
  );
}

/** The week's dates, previous and next week, and Today (pressed while this week shows). */
function WeekNav(props: { monday: string; today: string; setWeek: (week: string) => void }) {
  const { monday, today, setWeek } = props;
  return (
    <div className="week-nav">
      <button type="button" className="secondary" onClick={() => setWeek(addDays(monday, -7))}>
        <span aria-hidden="true">{'‹\u00a0'}</span>Previous week
      </button>
      <h2 id="week-heading" aria-live="polite">
        {formatDay(monday)} – {formatDay(addDays(monday, 6))}
      </h2>
      <span className="week-moves">
        <button
          type="button"
          className="secondary"
          aria-pressed={monday === mondayOf(today)}
          onClick={() => setWeek('')}
        >
          Today
        </button>
        <button type="button" className="secondary" onClick={() => setWeek(addDays(monday, 7))}>
          Next week<span aria-hidden="true">{'\u00a0›'}</span>
        </button>
      </span>
    </div>
  );
}

function WeekDay(props: { day: string; items: Reservation[]; today: string; zone: string }) {
  const { day, items, today, zone } = props;
  return (
    <li data-day={day} aria-current={day === today ? 'date' : undefined}>
      <h3>
        {formatDay(day)}
        {day === today ? (
          <>
            {' '}
            <span className="badge">Today</span>
          </>
        ) : null}
      </h3>
      {items.length ? (
        <ul>
          {items.map((r) => (
            <WeekEntry key={r.id} reservation={r} zone={zone} />
          ))}
        </ul>
      ) : (
        <p className="hint">Nothing booked</p>
      )}
    </li>
  );
}

function WeekEntry(props: { reservation: Reservation; zone: string }) {
  const { reservation: r, zone } = props;
  const catalogue = useCatalogue();
  return (
    <li>
      <Link className={`booking status-${r.status}`} to={`/app/reservations/${r.id}`}>
        {formatTime(r.startTime, zone)}–{formatTime(r.endTime, zone)} {r.customer.name ?? ''}
        <span className="hint">
          <span className="reference">{r.reference}</span>
          {whatOf(r, catalogue)
            .map((part) => ` · ${part}`)
            .join('')}
          {r.status !== 'confirmed' ? ` · ${statusWords(r.status)}` : ''}
        </span>
      </Link>
    </li>
  );
}
