import type { App } from '@modelcontextprotocol/ext-apps';
import type { TFunction } from 'i18next';
import { useMemo, useRef, useState } from 'react';
import { BOOKING_TOOL, bookingArguments, type Outcome, outcomeOf } from './booking.js';
import type { HostState } from './host-bridge.js';
import { byDay, type OfferedSlot, offeredSlots, personZone, timeRange } from './slots.js';
import { wordsFor } from './words.js';

/** What the booking shows while it runs and once it answered. */
type Booking =
  | { state: 'idle' }
  | { state: 'booking'; slot: OfferedSlot }
  | { state: 'done'; outcome: Outcome };

function OutcomeNote({ outcome, app, t }: { outcome: Outcome; app: App; t: TFunction }) {
  if (outcome.kind === 'booked') {
    const status = t(`status.${outcome.status}`, { defaultValue: outcome.status.replaceAll('_', ' ') });
    return (
      <p role="status" className="outcome booked">
        {t('booked', { reference: outcome.reference, status })}
      </p>
    );
  }
  if (outcome.kind === 'approval')
    return (
      <p role="status" className="outcome approval">
        {t('approval')}{' '}
        <button type="button" className="link" onClick={() => void app.openLink({ url: outcome.approveUrl })}>
          {t('openApproval')}
        </button>
      </p>
    );
  // A refusal the catalogue words is said in the host's language; another keeps the service's message.
  const message = outcome.code
    ? t(`refusal.${outcome.code}`, { defaultValue: outcome.message })
    : outcome.message;
  return (
    <p role="alert" className="outcome error">
      {t('notBooked', { message })}
    </p>
  );
}

interface DaysProps {
  t: TFunction;
  slots: OfferedSlot[];
  zone: string;
  locale?: string;
  busy: boolean;
  /** Slots this picker has booked: shown, no longer offered. */
  booked: ReadonlySet<OfferedSlot>;
  pick: (slot: OfferedSlot) => void;
}

function Days({ t, slots, zone, locale, busy, booked, pick }: DaysProps) {
  const days = useMemo(() => byDay(slots, zone, locale), [slots, zone, locale]);
  return days.map((day) => (
    <section key={day.key} aria-labelledby={`day-${day.key}`} className="day">
      <h2 id={`day-${day.key}`}>{day.label}</h2>
      <ul className="slots">
        {day.slots.map((slot) => (
          <li key={`${slot.start}-${slot.place}`}>
            <button type="button" disabled={busy || booked.has(slot)} onClick={() => pick(slot)}>
              {timeRange(slot, zone, locale)}{' '}
              <span className="place">{booked.has(slot) ? t('bookedSlot') : slot.place}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  ));
}

/** The picker: the answer's slots by day in the person's zone, the customer, the booking's outcome. */
export function SlotPicker({ app, host }: { app: App; host: HostState }) {
  const [booking, setBooking] = useState<Booking>({ state: 'idle' });
  const t = wordsFor(host.locale);
  const zone = personZone(host.timeZone);
  const slots = useMemo(() => offeredSlots(host.answer, host.input), [host.answer, host.input]);

  const customerForm = useRef<HTMLFormElement>(null);
  const [booked, setBooked] = useState<ReadonlySet<OfferedSlot>>(new Set());

  // No form submission: a host's sandbox may not allow forms, so the buttons book by themselves.
  async function book(slot: OfferedSlot) {
    const fields = customerForm.current;
    if (!fields?.reportValidity()) return;
    const form = new FormData(fields);
    const customer = { name: String(form.get('name')), email: String(form.get('email')) };
    setBooking({ state: 'booking', slot });
    try {
      const answer = await app.callServerTool({
        name: BOOKING_TOOL,
        arguments: bookingArguments(slot, customer, zone),
      });
      const outcome = outcomeOf(answer);
      if (outcome.kind === 'booked') setBooked((before) => new Set([...before, slot]));
      setBooking({ state: 'done', outcome });
    } catch (error) {
      setBooking({ state: 'done', outcome: { kind: 'error', message: String(error) } });
    }
  }

  return (
    <main>
      <h1>{t('title')}</h1>
      <p className="zone">{t('zone', { zone })}</p>
      {host.failure && (
        <p role="alert">
          {'message' in host.failure ? host.failure.message : t(`failure.${host.failure.words}`)}
        </p>
      )}
      {host.answer === undefined && !host.failure && <p role="status">{t('waiting')}</p>}
      {host.answer !== undefined && slots.length === 0 && <p>{t('noSlots')}</p>}
      {slots.length > 0 && (
        <form ref={customerForm} onSubmit={(event) => event.preventDefault()}>
          <fieldset>
            <legend>{t('customer')}</legend>
            <label>
              {t('name')} <input name="name" required autoComplete="name" maxLength={200} />
            </label>
            <label>
              {t('email')} <input name="email" type="email" required autoComplete="email" />
            </label>
          </fieldset>
          <Days
            t={t}
            slots={slots}
            zone={zone}
            locale={host.locale}
            busy={booking.state === 'booking'}
            booked={booked}
            pick={book}
          />
        </form>
      )}
      {booking.state === 'booking' && (
        <p role="status">{t('booking', { time: timeRange(booking.slot, zone, host.locale) })}</p>
      )}
      {booking.state === 'done' && <OutcomeNote outcome={booking.outcome} app={app} t={t} />}
    </main>
  );
}
