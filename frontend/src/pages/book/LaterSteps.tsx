// The booking page's steps after a time is chosen: the details, the review of a hold or of a
// series, and what was booked (or the waitlist entry made).
import type { RefObject } from 'react';
import type { ManagedReservation, PublicType } from '../../api/types.js';
import { BookingDone } from '../../components/BookingDone.js';
import { BookingReview } from '../../components/BookingReview.js';
import { DetailsForm } from '../../components/DetailsForm.js';
import { SeriesBooked, SeriesReview } from '../../components/Series.js';
import { WaitlistJoined } from '../../components/Waitlist.js';
import { postReservationEvent } from '../../lib/embed.js';
import type { BookableTime } from '../../lib/time.js';
import type { BookingChoice, BookingInputs, BookingSteps } from './use-booking-flow.js';

interface StepProps {
  headingRef: RefObject<HTMLHeadingElement | null>;
  slug: string;
  organisationName: string;
  type: PublicType;
  choice: BookingChoice;
  steps: BookingSteps;
}

export function DetailsStep(props: StepProps & { time: BookableTime; inputs: BookingInputs }) {
  const { headingRef, slug, type, time, choice, steps: s, inputs: i } = props;
  return (
    <DetailsForm
      headingRef={headingRef}
      slug={slug}
      type={type}
      time={time}
      zone={choice.zone}
      values={i.values}
      onValues={i.setValues}
      answers={i.answers}
      onAnswers={i.setAnswers}
      repeat={type.recurringEnabled && !i.waitOnly ? i.repeat : null}
      onRepeat={i.setRepeat}
      waitOnly={i.waitOnly}
      onBack={() => s.setStep('choose')}
      onPlaced={({ reservation, at, held }) => {
        choice.setTime(at);
        postReservationEvent(held ? 'reservation:held' : 'reservation:created', reservation);
        if (held) {
          s.setHeld(reservation);
          s.setStep('review');
        } else {
          s.setDone({ booked: reservation, manageUrl: reservation.manageUrl });
          s.setStep('done');
        }
      }}
      onPreview={(body, occurrences) => {
        s.setPreview({ body, occurrences });
        s.setStep('series-review');
      }}
      onWaitlisted={(joined) => {
        s.setEntry(joined);
        s.setStep('waitlisted');
      }}
    />
  );
}

/** The review of a hold, or of a series' dates. */
export function ReviewStep(props: StepProps) {
  const { headingRef, slug, type, choice, steps: s } = props;
  const { zone } = choice;
  if (s.step === 'review' && s.held) {
    const held = s.held;
    return (
      <BookingReview
        headingRef={headingRef}
        type={type}
        held={held}
        zone={zone}
        onConfirmed={(r: ManagedReservation) => {
          postReservationEvent('reservation:created', r);
          s.setDone({ booked: r, manageUrl: held.manageUrl });
          s.setStep('done');
        }}
        onPaid={(r: ManagedReservation) => {
          postReservationEvent('reservation:paid', r);
          s.setDone({ booked: r, manageUrl: held.manageUrl });
          s.setStep('done');
        }}
        onReleased={() => {
          s.setHeld(null);
          choice.setTime(null);
          s.setStep('choose');
        }}
      />
    );
  }
  if (s.step === 'series-review' && s.preview)
    return (
      <SeriesReview
        headingRef={headingRef}
        slug={slug}
        type={type}
        body={s.preview.body}
        occurrences={s.preview.occurrences}
        zone={zone}
        onBack={() => s.setStep('details')}
        onBooked={(booked) => {
          for (const r of booked.reservations) postReservationEvent('reservation:created', r);
          s.setSeries(booked);
          s.setStep('series-done');
        }}
      />
    );
  return null;
}

/** What was booked: one time, a series, or a place on the waitlist. */
export function DoneStep(props: StepProps) {
  const { headingRef, organisationName, type, choice, steps: s } = props;
  const { zone } = choice;
  if (s.step === 'series-done' && s.series)
    return (
      <SeriesBooked
        headingRef={headingRef}
        organisationName={organisationName}
        typeName={type.name}
        series={s.series}
        zone={zone}
      />
    );
  if (s.step === 'waitlisted' && s.entry)
    return <WaitlistJoined headingRef={headingRef} typeName={type.name} entry={s.entry} zone={zone} />;
  if (s.step === 'done' && s.done)
    return (
      <BookingDone
        headingRef={headingRef}
        organisationName={organisationName}
        typeName={type.name}
        booked={s.done.booked}
        manageUrl={s.done.manageUrl}
        zone={zone}
      />
    );
  return null;
}
