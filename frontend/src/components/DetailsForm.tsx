// The booking page's details step: who books, their answers and notes, then one button. A free
// type books there in one step; a paid one is held first (review and pay follow); a series is
// checked first; a taken time can be waited for.
import { useMutation } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { type FormEvent, type RefObject, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, api, idempotencyKey, unwrap } from '../api/client.js';
import { alternativesOf } from '../api/errors.js';
import type { BookedReservation, PublicType } from '../api/types.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useCustomerLanguage } from '../i18n/customer-language.js';
import type { Language } from '../i18n/languages.js';
import { Marked } from '../i18n/Marked.js';
import { type Answers, bookingBody, type CustomerSetting, paysFirst, type Values } from '../lib/booking.js';
import { rememberManageToken } from '../lib/manage-links.js';
import { MAX_WEEKS, MIN_WEEKS, parseWeeks, weeklyRecurrence } from '../lib/recurrence.js';
import { type BookableTime, formatDateTime } from '../lib/time.js';
import { CustomerFields, shownFields } from './CustomerFields.js';
import { Refusal } from './Refusal.js';
import {
  type PreviewOccurrence,
  previewSeries,
  RepeatControl,
  type SeriesBody,
  SeriesRefusalText,
} from './Series.js';
import { type JoinedEntry, joinWaitlist } from './Waitlist.js';

/** The repeat control: does not repeat, or weekly for `weeks` weeks (as typed). */
export interface Repeat {
  weekly: boolean;
  weeks: string;
}

/** A time held (a paid type: review and pay next) or booked outright (a free type: done). */
export interface Placed {
  reservation: BookedReservation;
  at: BookableTime;
  held: boolean;
}

/** Holds the time where payment is due before confirming, else books it in one request. */
async function place(
  slug: string,
  type: PublicType,
  at: BookableTime,
  values: Values,
  answers: Answers,
  who: Who,
) {
  const held = paysFirst(type);
  const params = { path: { slug }, header: { 'idempotency-key': idempotencyKey() } };
  const body = bookingBody(type, at, values, answers, who);
  // Without ?dryRun the answer is the 201 booking (the 200 is a dry run's verdict).
  const reservation = (await unwrap(
    held
      ? api.POST('/api/public/organisations/{slug}/holds', { params, body })
      : api.POST('/api/public/organisations/{slug}/reservations', { params, body }),
  )) as BookedReservation;
  return { reservation, at, held };
}

/** The customer's language and zone, which the booking keeps for its mails. */
type Who = CustomerSetting & { locale: Language };

function submitLabel(t: TFunction, waitOnly: boolean, weekly: boolean, held: boolean, pending: boolean) {
  if (waitOnly) return t(pending ? 'book.joining' : 'book.joinWaitlist');
  if (weekly) return t(pending ? 'book.checkingDates' : 'book.checkDates');
  if (held) return t(pending ? 'book.holdingPending' : 'book.holdThisTime');
  return t(pending ? 'book.booking' : 'book.confirmBooking');
}

interface DetailsProps {
  headingRef: RefObject<HTMLHeadingElement | null>;
  slug: string;
  type: PublicType;
  time: BookableTime;
  zone: string;
  values: Values;
  onValues: (update: (values: Values) => Values) => void;
  answers: Answers;
  onAnswers: (update: (answers: Answers) => Answers) => void;
  /** The repeat control's state on a type that takes a series; null: no repeat control. */
  repeat: Repeat | null;
  onRepeat: (repeat: Repeat) => void;
  /** The time is taken: the form joins its waitlist (no hold). */
  waitOnly: boolean;
  onBack: () => void;
  onPlaced: (placed: Placed) => void;
  onPreview: (body: SeriesBody, occurrences: PreviewOccurrence[]) => void;
  onWaitlisted: (entry: JoinedEntry) => void;
}

/** Booking (or holding), checking a series, and joining the waitlist; `last`: the latest refused. */
function useDetailsActions(props: DetailsProps) {
  const { slug, type, time, zone, values, answers } = props;
  const who: Who = { locale: useCustomerLanguage().language, timeZone: zone };
  const book = useMutation({
    mutationFn: (at: BookableTime) => place(slug, type, at, values, answers, who),
    onSuccess: (placed) => {
      const { reservation } = placed;
      if (reservation.manageToken) rememberManageToken(reservation.id, reservation.manageToken);
      props.onPlaced(placed);
    },
  });
  const check = useMutation({
    mutationFn: async (weeks: number) => {
      const body: SeriesBody = {
        ...bookingBody(type, time, values, answers, who),
        recurrence: weeklyRecurrence(weeks),
      };
      return { body, occurrences: await previewSeries(slug, body) };
    },
    onSuccess: ({ body, occurrences }) => props.onPreview(body, occurrences),
  });
  const join = useMutation({
    mutationFn: (at: BookableTime) => joinWaitlist(slug, bookingBody(type, at, values, answers, who)),
    onSuccess: props.onWaitlisted,
  });
  // The last refusal of the form: a booking or hold, the series' dry run, or joining the waitlist.
  const last = [book, check, join].reduce<(typeof book | typeof check | typeof join) | null>(
    (found, m) => (m.isError && (!found || m.submittedAt > found.submittedAt) ? m : found),
    null,
  );
  return { book, check, join, last };
}

type DetailsActions = ReturnType<typeof useDetailsActions>;

/**
 * The form's submit: join the waitlist, book (or hold) the time, or check the number of weeks
 * typed and then the series' dates; a new repeat choice clears the weeks' refusal.
 */
function useDetailsSubmit(props: DetailsProps, actions: DetailsActions) {
  const { time, repeat, waitOnly } = props;
  const { book, check, join } = actions;
  const [weeksError, setWeeksError] = useState<string | undefined>();
  const { t } = useTranslation();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (waitOnly) return join.mutate(time);
    if (!repeat?.weekly) return book.mutate(time);
    const weeks = parseWeeks(repeat.weeks);
    setWeeksError(weeks === null ? t('book.weeksRange', { min: MIN_WEEKS, max: MAX_WEEKS }) : undefined);
    if (weeks !== null) check.mutate(weeks);
  }

  function changeRepeat(weekly: boolean, weeks: string) {
    setWeeksError(undefined);
    props.onRepeat({ weekly, weeks });
  }

  return { weeksError, submit, changeRepeat };
}

export function DetailsForm(props: DetailsProps) {
  const { headingRef, type, time, zone, values, answers, onBack, repeat, waitOnly } = props;
  const actions = useDetailsActions(props);
  const { weeksError, submit, changeRepeat } = useDetailsSubmit(props, actions);
  const { book, check, join, last } = actions;
  const { t } = useTranslation();
  const locale = useCustomerLanguage().locale;
  const { fieldError } = useCustomerErrors();
  const details = last?.error instanceof ApiError ? last.error.details : [];
  const weekly = repeat?.weekly ?? false;
  const busy = book.isPending || check.isPending || join.isPending;
  const held = paysFirst(type);

  return (
    <section aria-labelledby="details-heading">
      <h2 id="details-heading" ref={headingRef} tabIndex={-1}>
        {t('book.detailsHeading')}
      </h2>
      <p>
        {waitOnly ? t('book.joinWaitlistPrefix') : ''}
        {type.name}, <strong>{formatDateTime(time.start, zone, locale)}</strong>{' '}
        <button type="button" className="link" onClick={onBack}>
          {t('common.change')}
        </button>
      </p>
      <form onSubmit={submit}>
        {repeat ? (
          <RepeatControl
            weekly={repeat.weekly}
            weeks={repeat.weeks}
            error={weeksError ?? fieldError(last?.error, 'recurrence.0')}
            onChange={changeRepeat}
          />
        ) : null}
        <CustomerFields
          type={type}
          values={values}
          onValues={props.onValues}
          answers={answers}
          onAnswers={props.onAnswers}
          details={details}
        />
        <Refusals type={type} zone={zone} actions={actions} busy={busy} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {submitLabel(t, waitOnly, weekly, held, (waitOnly ? join : weekly ? check : book).isPending)}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Why the last request was refused, with what can be done instead: another time, or the waitlist. */
function Refusals(props: { type: PublicType; zone: string; actions: DetailsActions; busy: boolean }) {
  const { type, zone, busy } = props;
  const { book, check, join, last } = props.actions;
  const { t } = useTranslation();
  const locale = useCustomerLanguage().locale;
  const { errorText, otherFieldErrors } = useCustomerErrors();
  const others = otherFieldErrors(last?.error, [...shownFields(type), 'recurrence.0']);
  const held = paysFirst(type);
  // A taken time on a type with a waitlist: offer to wait for it (the time last asked for).
  const taken =
    last === book &&
    book.error instanceof ApiError &&
    book.error.code === 'SLOT_UNAVAILABLE' &&
    type.waitlistEnabled &&
    book.variables
      ? book.variables
      : null;
  return (
    <>
      {last === book ? (
        <Refusal
          error={book.error}
          alternatives={alternativesOf(book.error)}
          zone={zone}
          others={others}
          onPick={(a) => book.mutate(a)}
        />
      ) : null}
      {last === check ? <SeriesRefusalText error={check.error} zone={zone} /> : null}
      {last === join ? (
        <div role="alert" className="error">
          <p>{errorText(join.error)}</p>
          {others.length > 0 ? (
            <ul>
              {others.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
          {join.error instanceof ApiError && join.error.code === 'SLOT_AVAILABLE' && join.variables ? (
            <button type="button" className="secondary" onClick={() => book.mutate(join.variables!)}>
              {t(held ? 'book.holdThisTime' : 'book.bookThisTime')}
            </button>
          ) : null}
        </div>
      ) : null}
      {taken ? (
        <div className="waitlist-offer">
          <p>
            <Marked text={t('book.waitInstead', { when: formatDateTime(taken.start, zone, locale) })} />
          </p>
          <button type="button" className="secondary" disabled={busy} onClick={() => join.mutate(taken)}>
            {t('book.joinWaitlistForTime')}
          </button>
        </div>
      ) : null}
    </>
  );
}
