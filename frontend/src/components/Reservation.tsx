import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocale } from '../i18n/customer-language.js';
import { icsOf } from '../lib/ics.js';
import { formatPrice } from '../lib/price.js';
import { formatDateTime, formatTime } from '../lib/time.js';

export type ReservationStatus = 'held' | 'pending_payment' | 'confirmed' | 'cancelled' | 'expired';

/** The catalogue key of a reservation's status in words, for the manage page and a series' list of dates. */
export const statusKey = (status: ReservationStatus) => `status.${status}` as const;

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
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <dl className="summary">
      <dt>{t('common.what')}</dt>
      <dd>{what}</dd>
      <dt>{t('common.when')}</dt>
      <dd>
        {formatDateTime(start, zone, locale)} – {formatTime(end, zone, locale)}{' '}
        <span className="hint">({zone.replaceAll('_', ' ')})</span>
      </dd>
      {priceAmount != null && priceCurrency ? (
        <>
          <dt>{t('common.price')}</dt>
          <dd>{formatPrice(priceAmount, priceCurrency, locale)}</dd>
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
  const { t } = useTranslation();
  const description = manageUrl ? t('common.icsDescription', { url: manageUrl }) : undefined;
  const href = useMemo(() => {
    const ics = icsOf({
      reservationId: id,
      host: location.hostname,
      start,
      end,
      summary,
      description,
      url: manageUrl ?? undefined,
      stamp: new Date().toISOString(),
    });
    return `data:text/calendar;charset=utf-8,${encodeURIComponent(ics)}`;
  }, [id, start, end, summary, manageUrl, description]);
  return (
    <a className="button secondary" href={href} download={`booking-${id}.ics`}>
      {t('common.addToCalendar')}
    </a>
  );
}
