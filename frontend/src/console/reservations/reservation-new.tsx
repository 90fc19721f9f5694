// Staff booking for a walk-in or phone customer (POST /api/reservations): a type, one of its
// resources, any free one or several resources together (together-fields.tsx), a free time of the chosen day from the availability API
// (use-new-booking.ts), and the customer's details with the type's own fields and questions
// (reservation-customer.tsx).
// Staff may book past the type's rules when it refuses on them.
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { alternativesOf, fieldErrors } from '../../api/errors.js';
import type { Organisation, ResourceType } from '../../api/types.js';
import { type BookableTime, formatDateTime, formatTime } from '../../lib/time.js';
import { Field, FormError, LoadError, Loading, Select } from '../ui.js';
import { BusyHosts } from './busy-hosts.js';
import { CustomerFieldset, customerFieldNames, emptyCustomer } from './reservation-customer.js';
import { TogetherFields } from './together-fields.js';
import {
  type FreeTimes,
  POOL,
  refusedOnRules,
  type SlotChoice,
  useBook,
  useSlotChoice,
} from './use-new-booking.js';
import { TOGETHER } from './use-together.js';

export function NewBooking(props: { org: Organisation }) {
  const { org } = props;
  const zone = org.timezone;
  const choice = useSlotChoice(zone);
  const { type, chosen } = choice;
  const [customer, setCustomer] = useState(emptyCustomer);
  const book = useBook(type, customer);
  // A collective booking keeps its resources whatever time is booked: a free one or an alternative.
  const bookAt = (at: BookableTime, overrideRules?: boolean) =>
    book.mutate({ at, resourceIds: choice.together?.order, ...(overrideRules ? { overrideRules } : {}) });
  const errors = fieldErrors(book.error);
  const ruleRefusal = refusedOnRules(org, book.error);
  if (choice.types.length === 0)
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
          if (chosen) bookAt(chosen);
        }}
      >
        <SlotFields choice={choice} zone={zone} errors={errors} />
        <PaymentNotice type={type} />
        <CustomerFieldset type={type} draft={customer} errors={errors} onChange={setCustomer} />
        {book.isError ? (
          <BookingRefusal
            error={book.error}
            zone={zone}
            shown={['resourceId', 'resourceIds', 'startTime', ...customerFieldNames(type)]}
            rules={ruleRefusal && chosen ? () => bookAt(chosen, true) : null}
            onAlternative={(at) => bookAt(at)}
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

/** The type, its resource (or any free one of a pool), the day and a free time of it. */
function SlotFields(props: { choice: SlotChoice; zone: string; errors: Record<string, string> }) {
  const { choice, zone, errors } = props;
  const { form, set, types, type, resources, pooled, target } = choice;
  return (
    <>
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
        {type && type.bookingMode !== 'POOL' ? (
          <option value={TOGETHER}>Several resources together</option>
        ) : null}
      </Select>
      {choice.together ? <TogetherFields group={choice.together} error={errors.resourceIds} /> : null}
      <div className="grid-2">
        <Field name="day" label="Day" type="date" value={form.day} onChange={set('day')} />
        <TimeChoice
          times={choice.free}
          value={form.time}
          zone={zone}
          error={errors.startTime}
          onChange={set('time')}
        />
      </div>
    </>
  );
}

function PaymentNotice(props: { type: ResourceType | undefined }) {
  const { type } = props;
  if (!type?.paymentRequired) return null;
  return (
    <p className="notice">
      {type.name} takes payment when booked: the reservation waits for payment and the customer is mailed a
      link to pay. The console cannot mark it paid.
    </p>
  );
}

function TimeChoice(props: {
  times: FreeTimes;
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
      <BusyHosts error={error} />
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
