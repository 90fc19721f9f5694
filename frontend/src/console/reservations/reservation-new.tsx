// Staff booking for a walk-in or phone customer (POST /api/reservations): a type, one of its
// resources or any free one, a free time of the chosen day from the availability API, and the
// customer's details with the type's own fields and questions (reservation-customer.tsx).
// Staff may book past the type's rules when it refuses on them.
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { idempotencyKey, unwrap } from '../../api/client.js';
import { alternativesOf, fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Reservation, ResourceType } from '../../api/types.js';
import {
  type BookableTime,
  bookableTimes,
  dayKey,
  formatDateTime,
  formatTime,
  instantOf,
} from '../../lib/time.js';
import { isStaff } from '../organisations/roles.js';
import { Field, FormError, LoadError, Loading, Select } from '../ui.js';
import { addDays } from '../week.js';
import { CustomerFieldset, customerBody, customerFieldNames, emptyCustomer } from './reservation-customer.js';
import { useCatalogue } from './reservation-data.js';

const POOL = 'any';

/** The free times of `day` (in `zone`) for the type on `target` (a resource id, or POOL). */
function useFreeTimes(type: ResourceType | undefined, target: string, day: string, zone: string) {
  const from = instantOf(`${day}T00:00`, zone);
  const to = instantOf(`${addDays(day, 1)}T00:00`, zone);
  return useQuery({
    queryKey: queryKeys.staffAvailability(type?.id, target, day),
    enabled: Boolean(type && target && from && to),
    queryFn: async (): Promise<BookableTime[]> => {
      const range = { query: { from: from!, to: to! } };
      const answer =
        target === POOL
          ? await unwrap(
              authed.GET('/api/resource-types/{id}/availability', {
                params: { path: { id: type!.id }, ...range },
              }),
            )
          : await unwrap(
              authed.GET('/api/resources/{id}/availability', {
                params: { path: { id: Number(target) }, ...range },
              }),
            );
      // A pool's answer may list its resources too: from the pool, the time is the pool's.
      const offer = target === POOL && 'pool' in answer && answer.pool ? { pool: answer.pool } : answer;
      return bookableTimes(offer, type!.minBookingDuration, Date.now()).filter(
        (t) => dayKey(t.start, zone) === day,
      );
    },
  });
}

export function NewBooking(props: { org: Organisation }) {
  const { org } = props;
  const zone = org.timezone;
  const navigate = useNavigate();
  const catalogue = useCatalogue();
  const [form, setForm] = useState({
    typeId: '',
    target: '',
    day: dayKey(Date.now(), zone),
    time: '',
  });
  const [customer, setCustomer] = useState(emptyCustomer);
  const set = (key: keyof typeof form) => (value: string) =>
    setForm((f) => ({
      ...f,
      [key]: value,
      // A new type, resource or day offers other times.
      ...(key === 'typeId' ? { target: '', time: '' } : {}),
      ...(key === 'target' || key === 'day' ? { time: '' } : {}),
    }));
  const types = catalogue.types;
  const type = types.find((t) => String(t.id) === form.typeId) ?? (form.typeId ? undefined : types[0]);
  const resources = catalogue.resources.filter((r) => r.resourceTypeId === type?.id && r.isActive);
  const pooled = type?.bookingMode === 'POOL' || type?.bookingMode === 'BOTH';
  const target = form.target || (pooled ? POOL : resources[0] ? String(resources[0].id) : '');
  const free = useFreeTimes(type, target, form.day, zone);
  const chosen = free.data?.find((t) => t.start === form.time) ?? null;
  const book = useMutation({
    mutationFn: (options: { at: BookableTime; overrideRules?: boolean }) =>
      unwrap(
        authed.POST('/api/reservations', {
          params: { header: { 'idempotency-key': idempotencyKey() } },
          body: {
            ...(options.at.resourceId !== null
              ? { resourceId: options.at.resourceId }
              : { resourceTypeId: type!.id }),
            startTime: options.at.start,
            endTime: options.at.end,
            customer: customerBody(type, customer),
            ...(customer.notes.trim() ? { notes: customer.notes } : {}),
            ...(options.overrideRules ? { overrideRules: true } : {}),
          },
        }),
      ) as Promise<Reservation>,
    onSuccess: (booked) => navigate(`/app/reservations/${booked.id}`, { state: { booked: true } }),
  });
  const errors = fieldErrors(book.error);
  const ruleRefusal =
    isStaff(org.role) &&
    book.error instanceof Error &&
    'code' in book.error &&
    book.error.code === 'BOOKING_RULE_VIOLATED';
  if (catalogue.types.length === 0)
    return (
      <main className="page">
        <h1>New booking</h1>
        <p className="empty">
          Nothing to book yet: <Link to="/app/types/new">create a type</Link> first.
        </p>
      </main>
    );
  return (
    <main className="page">
      <p>
        <Link to="/app/reservations">All reservations</Link>
      </p>
      <h1>New booking</h1>
      <p className="hint">
        For a customer at the desk or on the phone. Times in {zone.replaceAll('_', ' ')}.
      </p>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (chosen) book.mutate({ at: chosen });
        }}
      >
        <Select name="resourceTypeId" label="Type" value={String(type?.id ?? '')} onChange={set('typeId')}>
          {types.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </Select>
        <Select
          name="resourceId"
          label="Resource"
          value={target}
          error={errors.resourceId}
          onChange={set('target')}
        >
          {pooled ? <option value={POOL}>Any free one</option> : null}
          {type?.bookingMode !== 'POOL'
            ? resources.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))
            : null}
        </Select>
        <div className="grid-2">
          <Field name="day" label="Day" type="date" value={form.day} onChange={set('day')} />
          <TimeChoice
            times={free}
            value={form.time}
            zone={zone}
            error={errors.startTime}
            onChange={set('time')}
          />
        </div>
        {type?.paymentRequired ? (
          <p className="notice">
            {type.name} takes payment when booked: the reservation waits for payment and the customer is
            mailed a link to pay. The console cannot mark it paid.
          </p>
        ) : null}
        <CustomerFieldset type={type} draft={customer} errors={errors} onChange={setCustomer} />
        {book.isError ? (
          <BookingRefusal
            error={book.error}
            zone={zone}
            shown={['resourceId', 'startTime', ...customerFieldNames(type)]}
            rules={ruleRefusal && chosen ? () => book.mutate({ at: chosen, overrideRules: true }) : null}
            onAlternative={(at) => book.mutate({ at })}
          />
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={!chosen || book.isPending}>
            Book it
          </button>
        </div>
      </form>
    </main>
  );
}

function TimeChoice(props: {
  times: ReturnType<typeof useFreeTimes>;
  value: string;
  zone: string;
  error: string | undefined;
  onChange: (start: string) => void;
}) {
  const { times, value, zone, error, onChange } = props;
  if (times.isPending && times.fetchStatus !== 'idle') return <Loading />;
  if (times.isError) return <LoadError error={times.error} />;
  const free = times.data ?? [];
  return (
    <Select name="startTime" label="Time" value={value} error={error} onChange={onChange}>
      <option value="">{free.length ? 'Choose a free time' : 'No free time this day'}</option>
      {free.map((t) => (
        <option key={`${t.start}-${t.resourceId}`} value={t.start}>
          {formatTime(t.start, zone)}–{formatTime(t.end, zone)}
        </option>
      ))}
    </Select>
  );
}

/** Why it was not booked, with the times free instead and, for staff, booking past the rules. */
function BookingRefusal(props: {
  error: unknown;
  zone: string;
  /** The form's field names, which show their own refusal. */
  shown: string[];
  rules: (() => void) | null;
  onAlternative: (at: BookableTime) => void;
}) {
  const { error, zone, shown, rules, onAlternative } = props;
  const alternatives = alternativesOf(error);
  return (
    <>
      <FormError error={error} shown={shown} />
      {alternatives.length ? (
        <div className="notice">
          <p>These times are free instead:</p>
          <ul className="alternatives">
            {alternatives.map((a) => (
              <li key={`${a.startTime}-${a.resourceId}`}>
                <button
                  type="button"
                  className="time"
                  onClick={() =>
                    onAlternative({ start: a.startTime, end: a.endTime, resourceId: a.resourceId })
                  }
                >
                  {formatDateTime(a.startTime, zone)}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {rules ? (
        <button type="button" className="secondary" onClick={rules}>
          Book anyway, past the rules
        </button>
      ) : null}
    </>
  );
}
