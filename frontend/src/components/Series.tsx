// A weekly series on the booking page: the repeat control, the dry run's dates, booking them,
// the links of every date (the manage page's view of a series: ManageSeries.tsx).
import { useMutation } from '@tanstack/react-query';
import { type RefObject, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, api, idempotencyKey, unwrap } from '../api/client.js';
import type { paths } from '../api/schema.js';
import type { PublicType } from '../api/types.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useLanguageLink, useLocale } from '../i18n/customer-language.js';
import { Marked } from '../i18n/Marked.js';
import { isFramed } from '../lib/embed.js';
import { rememberManageToken } from '../lib/manage-links.js';
import { formatPrice } from '../lib/price.js';
import { MAX_WEEKS, MIN_WEEKS, totalPrice } from '../lib/recurrence.js';
import { formatDateTime, formatTime } from '../lib/time.js';
import { statusKey } from './Reservation.js';

type BookPath = paths['/api/public/organisations/{slug}/reservations']['post'];
/** The booking body with `recurrence`. */
export type SeriesBody = NonNullable<BookPath['requestBody']>['content']['application/json'];
type Created = BookPath['responses'][201]['content']['application/json'];
/** A booked series: every occurrence with its own manage link. */
export type BookedSeries = Extract<Created, { reservations: unknown }>;
type DryRunAnswer = BookPath['responses'][200]['content']['application/json'];
/** The occurrences a dry run says would be booked (no ids, no links). */
export type PreviewOccurrence = Extract<
  DryRunAnswer,
  { wouldSucceed: true; reservations: unknown }
>['reservations'][number];

/** The dry run of a series: its occurrences, or an ApiError naming what does not fit (its `conflicts`). */
export async function previewSeries(slug: string, body: SeriesBody): Promise<PreviewOccurrence[]> {
  // With ?dryRun the answer is the 200 verdict (the 201 is a booking's).
  const answer = (await unwrap(
    api.POST('/api/public/organisations/{slug}/reservations', {
      params: { path: { slug }, query: { dryRun: 'true' } },
      body,
    }),
  )) as DryRunAnswer;
  if (answer.wouldSucceed && 'reservations' in answer) return answer.reservations;
  if (!answer.wouldSucceed) {
    const e = answer.error;
    throw new ApiError(409, e.code, e.message, e.details ?? [], e.alternatives ?? [], e.conflicts ?? []);
  }
  // A single booking's verdict: the type took no recurrence.
  throw new ApiError(409, 'RECURRENCE_NOT_ENABLED', 'This service cannot be booked as a series.');
}

/** "Repeat": does not repeat, or every week for a number of weeks. */
export function RepeatControl(props: {
  weekly: boolean;
  weeks: string;
  error?: string | undefined;
  onChange: (weekly: boolean, weeks: string) => void;
}) {
  const { weekly, weeks, error, onChange } = props;
  const id = useId();
  const { t } = useTranslation();
  return (
    <fieldset className="repeat">
      <legend>{t('series.repeat')}</legend>
      <div className="field">
        <label htmlFor={`${id}-repeat`}>{t('series.howOften')}</label>
        <select
          id={`${id}-repeat`}
          value={weekly ? 'weekly' : 'once'}
          onChange={(e) => onChange(e.target.value === 'weekly', weeks)}
        >
          <option value="once">{t('series.once')}</option>
          <option value="weekly">{t('series.weekly')}</option>
        </select>
      </div>
      {weekly ? (
        <div className="field">
          <label htmlFor={`${id}-weeks`}>{t('series.weeks')}</label>
          <input
            id={`${id}-weeks`}
            type="number"
            inputMode="numeric"
            min={MIN_WEEKS}
            max={MAX_WEEKS}
            required
            value={weeks}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-weeks-error` : `${id}-weeks-hint`}
            onChange={(e) => onChange(true, e.target.value)}
          />
          {error ? (
            <p className="field-error" id={`${id}-weeks-error`}>
              {error}
            </p>
          ) : (
            <p className="hint" id={`${id}-weeks-hint`}>
              {t('series.weeksHint', { min: MIN_WEEKS, max: MAX_WEEKS })}
            </p>
          )}
        </div>
      ) : null}
    </fieldset>
  );
}

/** A refused series in words: each date that does not fit, with the times free instead. */
export function SeriesRefusalText({ error, zone }: { error: unknown; zone: string }) {
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  const locale = useLocale();
  if (!(error instanceof ApiError) || error.conflicts.length === 0)
    return (
      <div role="alert" className="error">
        <p>{errorText(error)}</p>
      </div>
    );
  return (
    <div role="alert" className="error">
      <p>{t('series.notFit', { count: error.conflicts.length })}</p>
      <ul className="conflicts">
        {error.conflicts.map((c) => (
          <li key={c.startTime}>
            <Marked
              text={t(c.alternatives.length > 0 ? 'series.takenNearby' : 'series.takenNone', {
                when: formatDateTime(c.startTime, zone, locale),
                times: c.alternatives.map((a) => formatDateTime(a.startTime, zone, locale)).join('; '),
              })}
            />
          </li>
        ))}
      </ul>
      <p>{t('series.chooseOther')}</p>
    </div>
  );
}

/** Booking the series checked; a paid one goes on to its one checkout, every date's link is kept. */
function useBookSeries(slug: string, body: SeriesBody, onBooked: (series: BookedSeries) => void) {
  return useMutation({
    mutationFn: async () => {
      // Without ?dryRun the answer is the 201 booking.
      const created = (await unwrap(
        api.POST('/api/public/organisations/{slug}/reservations', {
          params: { path: { slug }, header: { 'idempotency-key': idempotencyKey() } },
          body,
        }),
      )) as Created;
      if (!('reservations' in created)) throw new ApiError(500, 'INTERNAL', 'Not a series.');
      return created;
    },
    onSuccess: (series) => {
      for (const r of series.reservations) if (r.manageToken) rememberManageToken(r.id, r.manageToken);
      const checkout = series.reservations.find(
        (r) => r.status === 'pending_payment' && r.payment?.checkoutUrl,
      )?.payment?.checkoutUrl;
      // In a host site's frame the checkout gets a tab of its own: its way back is not framed.
      if (checkout && !isFramed()) return location.assign(checkout);
      if (checkout) window.open(checkout, '_blank');
      onBooked(series);
    },
  });
}

/** The dry run's dates, then "Book the series" (a paid series goes on to its one checkout). */
export function SeriesReview(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  slug: string;
  type: PublicType;
  body: SeriesBody;
  occurrences: PreviewOccurrence[];
  zone: string;
  onBack: () => void;
  onBooked: (series: BookedSeries) => void;
}) {
  const { headingRef, slug, type, body, occurrences, zone, onBack, onBooked } = props;
  const total = totalPrice(occurrences);
  const paid = type.paymentRequired && total !== null;
  const book = useBookSeries(slug, body, onBooked);
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <section aria-labelledby="series-review-heading">
      <h2 id="series-review-heading" ref={headingRef} tabIndex={-1}>
        {t('series.checkHeading')}
      </h2>
      <p>{t('series.everyWeek', { type: type.name, count: occurrences.length })}</p>
      <ol className="series-dates">
        {occurrences.map((o) => (
          <li key={o.startTime}>
            {formatDateTime(o.startTime, zone, locale)} – {formatTime(o.endTime, zone, locale)}
          </li>
        ))}
      </ol>
      <p className="hint">{t('common.timesIn', { zone: zone.replaceAll('_', ' ') })}</p>
      {total ? (
        <p>
          <strong>{t('series.total')}</strong> {formatPrice(total.amount, total.currency, locale)}
        </p>
      ) : null}
      {book.isError ? <SeriesRefusalText error={book.error} zone={zone} /> : null}
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={book.isPending || book.isSuccess}
          onClick={() => book.mutate()}
        >
          {book.isPending
            ? t('book.booking')
            : paid
              ? t('series.bookPay', { price: formatPrice(total.amount, total.currency, locale) })
              : t('series.book')}
        </button>
        <button type="button" className="secondary" onClick={onBack}>
          {t('common.change')}
        </button>
      </div>
      {paid ? <p className="hint">{t('common.securePayment')}</p> : null}
    </section>
  );
}

/** The booked series: every date with its own manage link. */
export function SeriesBooked(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  organisationName: string;
  typeName: string;
  series: BookedSeries;
  zone: string;
}) {
  const { headingRef, organisationName, typeName, series, zone } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  const link = useLanguageLink();
  return (
    <section aria-labelledby="series-done-heading" className="done">
      <h2 id="series-done-heading" ref={headingRef} tabIndex={-1}>
        {t('series.bookedHeading')}
      </h2>
      <p>
        {t('series.bookedIntro', {
          type: typeName,
          organisation: organisationName,
          count: series.reservations.length,
        })}
      </p>
      <ol className="series-dates">
        {series.reservations.map((r) => {
          const when = formatDateTime(r.startTime, zone, locale);
          return (
            <li key={r.id}>
              <span>
                {when} – {formatTime(r.endTime, zone, locale)}
                {r.status !== 'confirmed' ? ` (${t(statusKey(r.status))})` : ''}
              </span>{' '}
              {r.manageUrl ? (
                <a
                  href={link(r.manageUrl)}
                  className="manage-link"
                  aria-label={t('series.manageDateLabel', { when })}
                >
                  {t('series.manageDate')}
                </a>
              ) : null}
            </li>
          );
        })}
      </ol>
      <p className="hint">{t('common.timesIn', { zone: zone.replaceAll('_', ' ') })}</p>
    </section>
  );
}
