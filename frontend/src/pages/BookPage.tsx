import { useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { errorText } from '../api/errors.js';
import { usePublicCatalogue } from '../api/hooks.js';
import type { BookedReservation, Catalogue, ManagedReservation } from '../api/types.js';
import { type BookedTime, BookingDone } from '../components/BookingDone.js';
import { BookingReview } from '../components/BookingReview.js';
import { Branding } from '../components/Branding.js';
import { DetailsForm, type Repeat } from '../components/DetailsForm.js';
import {
  type BookedSeries,
  type PreviewOccurrence,
  type SeriesBody,
  SeriesBooked,
  SeriesReview,
} from '../components/Series.js';
import { ServiceChoice } from '../components/ServiceChoice.js';
import { SlotPicker, type Target } from '../components/SlotPicker.js';
import { type JoinedEntry, WaitlistAsk, WaitlistJoined } from '../components/Waitlist.js';
import { ZonePicker } from '../components/ZonePicker.js';
import type { Answers, Values } from '../lib/booking.js';
import { type BookableTime, formatDateTime, visitorZone } from '../lib/time.js';

type Step = 'choose' | 'details' | 'review' | 'done' | 'series-review' | 'series-done' | 'waitlisted';

/** Moves focus to a step's heading when it appears, so keyboard and screen-reader users follow. */
function useFocusOnShow<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus again whenever the step changes
  useEffect(() => ref.current?.focus(), [key]);
  return ref;
}

export function BookPage() {
  const { slug = '' } = useParams();
  const catalogue = usePublicCatalogue(slug);
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
  // `?type=<id>`, the console's link to one type, opens with that type chosen.
  const [search] = useSearchParams();
  const [typeId, setTypeId] = useState<number | null>(() => {
    const linked = resourceTypes.find((t) => String(t.id) === search.get('type'));
    return linked?.id ?? (resourceTypes.length === 1 ? resourceTypes[0]!.id : null);
  });
  const type = resourceTypes.find((t) => t.id === typeId) ?? null;
  // After Branding's own title (a child's effect runs first): the chosen type names the tab.
  useEffect(() => {
    document.title = type ? `${type.name} · ${organisation.name}` : organisation.name;
  }, [type, organisation.name]);
  const typeResources = resources.filter((r) => r.resourceTypeId === typeId);
  const [resourceChoice, setResourceChoice] = useState<number | 'any' | null>(null);
  const [time, setTime] = useState<BookableTime | null>(null);
  const [step, setStep] = useState<Step>('choose');
  const [held, setHeld] = useState<BookedReservation | null>(null);
  const [done, setDone] = useState<{ booked: BookedTime; manageUrl: string | null } | null>(null);
  const [values, setValues] = useState<Values>({});
  const [answers, setAnswers] = useState<Answers>({});
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
          <ServiceChoice
            headingRef={headingRef}
            types={resourceTypes}
            type={type}
            resources={typeResources}
            resource={choice}
            onType={(id) => {
              setTypeId(id);
              setResourceChoice(null);
              setTime(null);
              setAnswers({});
              setRepeat((r) => ({ ...r, weekly: false }));
            }}
            onResource={(v) => {
              setResourceChoice(v);
              setTime(null);
            }}
          />
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
        <DetailsForm
          headingRef={headingRef}
          slug={slug}
          type={type}
          time={time}
          zone={zone}
          values={values}
          onValues={setValues}
          answers={answers}
          onAnswers={setAnswers}
          repeat={type.recurringEnabled && !waitOnly ? repeat : null}
          onRepeat={setRepeat}
          waitOnly={waitOnly}
          onBack={() => setStep('choose')}
          onPlaced={({ reservation, at, held }) => {
            setTime(at);
            if (held) {
              setHeld(reservation);
              setStep('review');
            } else {
              setDone({ booked: reservation, manageUrl: reservation.manageUrl });
              setStep('done');
            }
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
        <BookingReview
          headingRef={headingRef}
          type={type}
          held={held}
          zone={zone}
          onConfirmed={(r: ManagedReservation) => {
            setDone({ booked: r, manageUrl: held.manageUrl });
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
      {step === 'done' && type && done ? (
        <BookingDone
          headingRef={headingRef}
          organisationName={organisation.name}
          typeName={type.name}
          booked={done.booked}
          manageUrl={done.manageUrl}
          zone={zone}
        />
      ) : null}
    </main>
  );
}
