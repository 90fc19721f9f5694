import { useMemo } from 'react';
import { icsOf } from '../lib/ics.js';
import { formatDateTime, formatTime } from '../lib/time.js';

export type ReservationStatus = 'held' | 'pending_payment' | 'confirmed' | 'cancelled' | 'expired';

/** A reservation's status in words, for the manage page and a series' list of dates. */
export const STATUS_WORDS: Record<ReservationStatus, string> = {
  held: 'Held for you, not yet confirmed',
  pending_payment: 'Waiting for payment',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
  expired: 'Expired: the time was not confirmed or paid in time',
};

/** An amount in minor units in the currency's own words: 2500 EUR is "€25.00". */
export function formatPrice(amount: number, currency: string, locale?: string): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

/** What was booked, when (in `zone`) and for how much. */
export function Summary(props: {
  what: string;
  start: string;
  end: string;
  zone: string;
  priceAmount?: number | null | undefined;
  priceCurrency?: string | null | undefined;
}) {
  const { what, start, end, zone, priceAmount, priceCurrency } = props;
  return (
    <dl className="summary">
      <dt>What</dt>
      <dd>{what}</dd>
      <dt>When</dt>
      <dd>
        {formatDateTime(start, zone)} – {formatTime(end, zone)}{' '}
        <span className="hint">({zone.replaceAll('_', ' ')})</span>
      </dd>
      {priceAmount != null && priceCurrency ? (
        <>
          <dt>Price</dt>
          <dd>{formatPrice(priceAmount, priceCurrency)}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** A link that downloads the reservation as an .ics file, made in the browser. */
export function IcsLink(props: {
  id: number;
  start: string;
  end: string;
  summary: string;
  manageUrl?: string | null | undefined;
}) {
  const { id, start, end, summary, manageUrl } = props;
  const href = useMemo(() => {
    const ics = icsOf({
      reservationId: id,
      host: location.hostname,
      start,
      end,
      summary,
      description: manageUrl ? `Change or cancel: ${manageUrl}` : undefined,
      url: manageUrl ?? undefined,
      stamp: new Date().toISOString(),
    });
    return `data:text/calendar;charset=utf-8,${encodeURIComponent(ics)}`;
  }, [id, start, end, summary, manageUrl]);
  return (
    <a className="button secondary" href={href} download={`booking-${id}.ics`}>
      Add to calendar (.ics)
    </a>
  );
}
