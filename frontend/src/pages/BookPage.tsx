import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import { useParams } from 'react-router';
import {
  type Alternative,
  ApiError,
  api,
  type BookedReservation,
  type Catalogue,
  idempotencyKey,
  type ManagedReservation,
  type PublicType,
  type ReservationBody,
  unwrap,
} from '../api/client.js';
import { alternativesOf, errorText, fieldErrors } from '../api/errors.js';
import { Branding } from '../components/Branding.js';
import { formatPrice, IcsLink, Summary } from '../components/Reservation.js';
import {
  type BookedSeries,
  type PreviewOccurrence,
  previewSeries,
  RepeatControl,
  type SeriesBody,
  SeriesBooked,
  SeriesRefusalText,
  SeriesReview,
} from '../components/Series.js';
import { SlotPicker, type Target } from '../components/SlotPicker.js';
import { type JoinedEntry, joinWaitlist, WaitlistAsk, WaitlistJoined } from '../components/Waitlist.js';
import { ZonePicker } from '../components/ZonePicker.js';
import { fieldLabel, rememberManageToken } from '../lib/manage-links.js';
import { MAX_WEEKS, MIN_WEEKS, parseWeeks, weeklyRecurrence } from '../lib/recurrence.js';
import { type BookableTime, formatDateTime, minutesLeft, visitorZone } from '../lib/time.js';

type Step = 'choose' | 'details' | 'review' | 'done' | 'series-review' | 'series-done' | 'waitlisted';

/** What the customer typed in the details form, by field key. */
type Values = Record<string, string>;
/** The repeat control: does not repeat, or weekly for `weeks` weeks (as typed). */
interface Repeat {
  weekly: boolean;
  weeks: string;
}

/** The booking body of a time with the customer's details (a hold, a series, a waitlist entry). */
function bookingBody(type: PublicType, at: BookableTime, values: Values): ReservationBody {
  const customer: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (k !== 'notes' && v.trim()) customer[k] = v.trim();
  return {
    ...(at.resourceId !== null ? { resourceId: at.resourceId } : { resourceTypeId: type.id }),
    startTime: at.start,
    endTime: at.end,
    customer: customer as { name: string; email: string },
    ...(values.notes?.trim() ? { notes: values.notes.trim() } : {}),
  };
}

/** Moves focus to a step's heading when it appears, so keyboard and screen-reader users follow. */
function useFocusOnShow<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus again whenever the step changes
  useEffect(() => ref.current?.focus(), [key]);
  return ref;
}

export function BookPage() {
  const { slug = '' } = useParams();
  const catalogue = useQuery({
    queryKey: ['catalogue', slug],
    queryFn: () => unwrap(api.GET('/api/public/organisations/{slug}', { params: { path: { slug } } })),
  });
  if (catalogue.isPending) return <p className="loading">Loading…</p>;
  if (catalogue.isError)
    return (
      <main className="page">
        <h1>Booking page not available</h1>
        <p role="alert">{errorText(catalogue.error)}</p>
      </main>
    );
  return <Booking slug={slug} catalogue={catalogue.data} />;
}

function Booking({ slug, catalogue }: { slug: string; catalogue: Catalogue }) {
  const { organisation, resourceTypes, resources } = catalogue;
  const [zone, setZone] = useState(visitorZone);
  const [typeId, setTypeId] = useState<number | null>(
    resourceTypes.length === 1 ? resourceTypes[0]!.id : null,
  );
  const type = resourceTypes.find((t) => t.id === typeId) ?? null;
  const typeResources = resources.filter((r) => r.resourceTypeId === typeId);
  const [resourceChoice, setResourceChoice] = useState<number | 'any' | null>(null);
  const [time, setTime] = useState<BookableTime | null>(null);
  const [step, setStep] = useState<Step>('choose');
  const [held, setHeld] = useState<BookedReservation | null>(null);
  const [booked, setBooked] = useState<ManagedReservation | null>(null);
  const [values, setValues] = useState<Values>({});
  const [repeat, setRepeat] = useState<Repeat>({ weekly: false, weeks: '4' });
  // A time asked for on the waitlist directly (it is taken, so no slot offers it).
  const [waitOnly, setWaitOnly] = useState(false);
  const [preview, setPreview] = useState<{ body: SeriesBody; occurrences: PreviewOccurrence[] } | null>(null);
  const [series, setSeries] = useState<BookedSeries | null>(null);
  const [entry, setEntry] = useState<JoinedEntry | null>(null);
  const headingRef = useFocusOnShow<HTMLHeadingElement>(step);

  // A type's resource: the pool ("any") where the type books from it, else the first resource.
  const choice =
    resourceChoice ??
    (type && type.bookingMode !== 'SINGLE_RESOURCE' ? 'any' : (typeResources[0]?.id ?? null));
  const target: Target | null =
    type === null
      ? null
      : choice === 'any'
        ? { resourceTypeId: type.id }
        : choice
          ? { resourceId: choice }
          : null;

  if (resourceTypes.length === 0)
    return (
      <main className="page">
        <Branding organisation={organisation} />
        <p className="empty">Nothing can be booked here at the moment.</p>
      </main>
    );

  return (
    <main className="page">
      <Branding organisation={organisation} />
      {step === 'choose' ? (
        <>
          <section aria-labelledby="what-heading">
            <h2 id="what-heading" ref={headingRef} tabIndex={-1}>
              What would you like to book?
            </h2>
            <fieldset className="choices">
              <legend className="visually-hidden">Service</legend>
              {resourceTypes.map((t) => (
                <label key={t.id} className="choice">
                  <input
                    type="radio"
                    name="type"
                    checked={typeId === t.id}
                    onChange={() => {
                      setTypeId(t.id);
                      setResourceChoice(null);
                      setTime(null);
                      setRepeat((r) => ({ ...r, weekly: false }));
                    }}
                  />
                  <span>
                    <strong>{t.name}</strong>
                    <span className="hint">
                      {' '}
                      {t.minBookingDuration} min
                      {t.pricingEnabled && t.priceAmount != null && t.priceCurrency
                        ? ` · ${formatPrice(t.priceAmount, t.priceCurrency)}`
                        : ''}
                    </span>
                    {t.description ? <span className="choice-description">{t.description}</span> : null}
                  </span>
                </label>
              ))}
            </fieldset>
            {type && type.bookingMode !== 'POOL' && typeResources.length > 0 ? (
              <ResourceChoice
                type={type}
                resources={typeResources}
                value={choice}
                onChange={(v) => {
                  setResourceChoice(v);
                  setTime(null);
                }}
              />
            ) : null}
          </section>
          {type && !target ? <p className="empty">This service cannot be booked at the moment.</p> : null}
          {type && target ? (
            <section aria-labelledby="when-heading">
              <h2 id="when-heading">When?</h2>
              <ZonePicker zone={zone} organisationZone={organisation.timezone} onChange={setZone} />
              <SlotPicker
                key={JSON.stringify(target)}
                slug={slug}
                target={target}
                durationMinutes={type.minBookingDuration}
                zone={zone}
                selected={time?.start ?? null}
                onSelect={setTime}
              />
              {type.waitlistEnabled ? (
                <WaitlistAsk
                  zone={zone}
                  durationMinutes={type.minBookingDuration}
                  resourceId={choice === 'any' ? null : choice}
                  onAsk={(at) => {
                    setTime(at);
                    setWaitOnly(true);
                    setStep('details');
                  }}
                />
              ) : null}
              {time ? (
                <div className="actions sticky">
                  <p>
                    <strong>{formatDateTime(time.start, zone)}</strong>
                  </p>
                  <button
                    type="button"
                    className="primary"
                    onClick={() => {
                      setWaitOnly(false);
                      setStep('details');
                    }}
                  >
                    Continue
                  </button>
                </div>
              ) : null}
            </section>
          ) : null}
        </>
      ) : null}
      {step === 'details' && type && time ? (
        <DetailsStep
          headingRef={headingRef}
          slug={slug}
          type={type}
          time={time}
          zone={zone}
          values={values}
          onValues={setValues}
          repeat={type.recurringEnabled && !waitOnly ? repeat : null}
          onRepeat={setRepeat}
          waitOnly={waitOnly}
          onBack={() => setStep('choose')}
          onHeld={(reservation, heldTime) => {
            setTime(heldTime);
            setHeld(reservation);
            setStep('review');
          }}
          onPreview={(body, occurrences) => {
            setPreview({ body, occurrences });
            setStep('series-review');
          }}
          onWaitlisted={(joined) => {
            setEntry(joined);
            setStep('waitlisted');
          }}
        />
      ) : null}
      {step === 'review' && type && held ? (
        <ReviewStep
          headingRef={headingRef}
          type={type}
          held={held}
          zone={zone}
          onConfirmed={(r) => {
            setBooked(r);
            setStep('done');
          }}
          onReleased={() => {
            setHeld(null);
            setTime(null);
            setStep('choose');
          }}
        />
      ) : null}
      {step === 'series-review' && type && preview ? (
        <SeriesReview
          headingRef={headingRef}
          slug={slug}
          type={type}
          body={preview.body}
          occurrences={preview.occurrences}
          zone={zone}
          onBack={() => setStep('details')}
          onBooked={(booked) => {
            setSeries(booked);
            setStep('series-done');
          }}
        />
      ) : null}
      {step === 'series-done' && type && series ? (
        <SeriesBooked
          headingRef={headingRef}
          organisationName={organisation.name}
          typeName={type.name}
          series={series}
          zone={zone}
        />
      ) : null}
      {step === 'waitlisted' && type && entry ? (
        <WaitlistJoined headingRef={headingRef} typeName={type.name} entry={entry} zone={zone} />
      ) : null}
      {step === 'done' && type && booked && held ? (
        <section aria-labelledby="done-heading" className="done">
          <h2 id="done-heading" ref={headingRef} tabIndex={-1}>
            You are booked
          </h2>
          <p>A confirmation of your booking with {organisation.name}:</p>
          <Summary
            what={type.name}
            start={booked.startTime}
            end={booked.endTime}
            zone={zone}
            priceAmount={booked.priceAmount}
            priceCurrency={booked.priceCurrency}
          />
          <div className="actions">
            <IcsLink
              id={booked.id}
              start={booked.startTime}
              end={booked.endTime}
              summary={`${type.name} · ${organisation.name}`}
              manageUrl={held.manageUrl}
            />
          </div>
          {held.manageUrl ? (
            <p>
              Keep this link to see, move or cancel your booking:{' '}
              <a href={held.manageUrl} className="manage-link">
                Manage your booking
              </a>
            </p>
          ) : null}
        </section>
      ) : null}
    </main>
  );
}

function ResourceChoice(props: {
  type: PublicType;
  resources: Catalogue['resources'];
  value: number | 'any' | null;
  onChange: (value: number | 'any') => void;
}) {
  const { type, resources, value, onChange } = props;
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>With</label>
      <select
        id={id}
        value={String(value ?? '')}
        onChange={(e) => onChange(e.target.value === 'any' ? 'any' : Number(e.target.value))}
      >
        {type.bookingMode !== 'SINGLE_RESOURCE' ? <option value="any">Anyone available</option> : null}
        {resources.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function DetailsStep(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  slug: string;
  type: PublicType;
  time: BookableTime;
  zone: string;
  values: Values;
  onValues: (update: (values: Values) => Values) => void;
  /** The repeat control's state on a type that takes a series; null: no repeat control. */
  repeat: Repeat | null;
  onRepeat: (repeat: Repeat) => void;
  /** The time is taken: the form joins its waitlist (no hold). */
  waitOnly: boolean;
  onBack: () => void;
  onHeld: (reservation: BookedReservation, time: BookableTime) => void;
  onPreview: (body: SeriesBody, occurrences: PreviewOccurrence[]) => void;
  onWaitlisted: (entry: JoinedEntry) => void;
}) {
  const { headingRef, slug, type, time, zone, values, onBack, onHeld } = props;
  const { repeat, waitOnly } = props;
  const setValues = props.onValues;
  const [weeksError, setWeeksError] = useState<string | undefined>();
  const hold = useMutation({
    mutationFn: async (at: BookableTime) => {
      const body = bookingBody(type, at, values);
      // Without ?dryRun the answer is the 201 hold (the 200 is a dry run's verdict).
      const reservation = (await unwrap(
        api.POST('/api/public/organisations/{slug}/holds', {
          params: { path: { slug }, header: { 'idempotency-key': idempotencyKey() } },
          body,
        }),
      )) as BookedReservation;
      return { reservation, at };
    },
    onSuccess: ({ reservation, at }) => {
      if (reservation.manageToken) rememberManageToken(reservation.id, reservation.manageToken);
      onHeld(reservation, at);
    },
  });
  const check = useMutation({
    mutationFn: async (weeks: number) => {
      const body: SeriesBody = { ...bookingBody(type, time, values), recurrence: weeklyRecurrence(weeks) };
      return { body, occurrences: await previewSeries(slug, body) };
    },
    onSuccess: ({ body, occurrences }) => props.onPreview(body, occurrences),
  });
  const join = useMutation({
    mutationFn: (at: BookableTime) => joinWaitlist(slug, bookingBody(type, at, values)),
    onSuccess: props.onWaitlisted,
  });
  // The last refusal of the form: a hold, the series' dry run, or joining the waitlist.
  const last = [hold, check, join].reduce<(typeof hold | typeof check | typeof join) | null>(
    (found, m) => (m.isError && (!found || m.submittedAt > found.submittedAt) ? m : found),
    null,
  );
  const errors = fieldErrors(last?.error);
  const alternatives = alternativesOf(hold.error);
  // A taken time on a type with a waitlist: offer to wait for it (the time last asked for).
  const taken =
    last === hold &&
    hold.error instanceof ApiError &&
    hold.error.code === 'SLOT_UNAVAILABLE' &&
    type.waitlistEnabled &&
    hold.variables
      ? hold.variables
      : null;
  const weekly = repeat?.weekly ?? false;
  const busy = hold.isPending || check.isPending || join.isPending;
  const fields: { key: string; label: string; type: string; required: boolean; autoComplete?: string }[] = [
    { key: 'name', label: 'Your name', type: 'text', required: true, autoComplete: 'name' },
    { key: 'email', label: 'Email', type: 'email', required: true, autoComplete: 'email' },
    { key: 'phone', label: 'Phone (optional)', type: 'tel', required: false, autoComplete: 'tel' },
    ...type.customerInfoFields
      .filter((k) => !['name', 'email', 'phone'].includes(k))
      .map((key) => ({ key, label: fieldLabel(key), type: 'text', required: true })),
  ];

  function submit(event: FormEvent) {
    event.preventDefault();
    if (waitOnly) return join.mutate(time);
    if (!weekly) return hold.mutate(time);
    const weeks = parseWeeks(repeat?.weeks ?? '');
    setWeeksError(weeks === null ? `Enter a number of weeks from ${MIN_WEEKS} to ${MAX_WEEKS}.` : undefined);
    if (weeks !== null) check.mutate(weeks);
  }

  return (
    <section aria-labelledby="details-heading">
      <h2 id="details-heading" ref={headingRef} tabIndex={-1}>
        Your details
      </h2>
      <p>
        {waitOnly ? 'Join the waitlist: ' : ''}
        {type.name}, <strong>{formatDateTime(time.start, zone)}</strong>{' '}
        <button type="button" className="link" onClick={onBack}>
          Change
        </button>
      </p>
      <form onSubmit={submit} noValidate={false}>
        {repeat ? (
          <RepeatControl
            weekly={repeat.weekly}
            weeks={repeat.weeks}
            error={weeksError ?? errors['recurrence.0']}
            onChange={(weekly, weeks) => {
              setWeeksError(undefined);
              props.onRepeat({ weekly, weeks });
            }}
          />
        ) : null}
        {fields.map((f) => {
          const error = errors[`customer.${f.key}`];
          return (
            <div className="field" key={f.key}>
              <label htmlFor={`f-${f.key}`}>{f.label}</label>
              <input
                id={`f-${f.key}`}
                name={f.key}
                type={f.type}
                required={f.required}
                autoComplete={f.autoComplete}
                value={values[f.key] ?? ''}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `e-${f.key}` : undefined}
                onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
              />
              {error ? (
                <p className="field-error" id={`e-${f.key}`}>
                  {error}
                </p>
              ) : null}
            </div>
          );
        })}
        <div className="field">
          <label htmlFor="f-notes">Notes (optional)</label>
          <textarea
            id="f-notes"
            name="notes"
            rows={3}
            value={values.notes ?? ''}
            onChange={(e) => setValues((v) => ({ ...v, notes: e.target.value }))}
          />
        </div>
        {last === hold ? (
          <Refusal
            error={hold.error}
            alternatives={alternatives}
            zone={zone}
            onPick={(a) => hold.mutate(a)}
          />
        ) : null}
        {last === check ? <SeriesRefusalText error={check.error} zone={zone} /> : null}
        {last === join ? (
          <div role="alert" className="error">
            <p>{errorText(join.error)}</p>
            {join.error instanceof ApiError && join.error.code === 'SLOT_AVAILABLE' && join.variables ? (
              <button type="button" className="secondary" onClick={() => hold.mutate(join.variables!)}>
                Hold this time
              </button>
            ) : null}
          </div>
        ) : null}
        {taken ? (
          <div className="waitlist-offer">
            <p>
              Or wait for <strong>{formatDateTime(taken.start, zone)}</strong>: if it becomes free, it is held
              for you and you are told by email.
            </p>
            <button type="button" className="secondary" disabled={busy} onClick={() => join.mutate(taken)}>
              Join the waitlist for this time
            </button>
          </div>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {waitOnly
              ? join.isPending
                ? 'Joining…'
                : 'Join the waitlist'
              : weekly
                ? check.isPending
                  ? 'Checking the dates…'
                  : 'Check the dates'
                : hold.isPending
                  ? 'Holding…'
                  : 'Hold this time'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** A refusal in words, with the times the API offers instead as buttons. */
export function Refusal(props: {
  error: unknown;
  alternatives: Alternative[];
  zone: string;
  onPick: (time: BookableTime) => void;
}) {
  const { error, alternatives, zone, onPick } = props;
  return (
    <div role="alert" className="error">
      <p>{errorText(error)}</p>
      {alternatives.length > 0 ? (
        <>
          <p>These times are free instead:</p>
          <ul className="alternatives">
            {alternatives.map((a) => (
              <li key={`${a.startTime}-${a.resourceId}`}>
                <button
                  type="button"
                  className="time"
                  onClick={() => onPick({ start: a.startTime, end: a.endTime, resourceId: a.resourceId })}
                >
                  {formatDateTime(a.startTime, zone)}
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

function ReviewStep(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  type: PublicType;
  held: BookedReservation;
  zone: string;
  onConfirmed: (r: ManagedReservation) => void;
  onReleased: () => void;
}) {
  const { headingRef, type, held, zone, onConfirmed, onReleased } = props;
  const token = held.manageToken ?? '';
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  const confirm = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/confirm', { params: { path: { token } } })),
    onSuccess: (r) => {
      if (r.status === 'pending_payment' && r.payment?.checkoutUrl) location.assign(r.payment.checkoutUrl);
      else onConfirmed(r);
    },
  });
  const release = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/cancel', { params: { path: { token } } })),
    onSuccess: onReleased,
  });
  const left = held.expiresAt ? minutesLeft(held.expiresAt, now) : null;
  const paid = type.paymentRequired && held.priceAmount != null && held.priceCurrency;
  return (
    <section aria-labelledby="review-heading">
      <h2 id="review-heading" ref={headingRef} tabIndex={-1}>
        {paid ? 'Review and pay' : 'Review and confirm'}
      </h2>
      <p className="notice" aria-live="polite">
        {left === 0
          ? 'The time we held for you has run out.'
          : `We are holding this time for you${left ? ` for ${left} more minute${left === 1 ? '' : 's'}` : ''}.`}
      </p>
      <Summary
        what={type.name}
        start={held.startTime}
        end={held.endTime}
        zone={zone}
        priceAmount={held.priceAmount}
        priceCurrency={held.priceCurrency}
      />
      {confirm.isError ? (
        <div role="alert" className="error">
          <p>{errorText(confirm.error)}</p>
        </div>
      ) : null}
      {release.isError ? (
        <div role="alert" className="error">
          <p>{errorText(release.error)}</p>
        </div>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={confirm.isPending || confirm.isSuccess || left === 0}
          onClick={() => confirm.mutate()}
        >
          {paid
            ? `Pay ${formatPrice(held.priceAmount!, held.priceCurrency!)}`
            : confirm.isPending
              ? 'Confirming…'
              : 'Confirm booking'}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={release.isPending}
          onClick={() => release.mutate()}
        >
          Choose another time
        </button>
      </div>
      {paid ? <p className="hint">You will be taken to the secure payment page, then back here.</p> : null}
    </section>
  );
}
