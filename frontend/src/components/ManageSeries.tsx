// A weekly series on the manage page: the series' dates, and cancelling all of them.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client.js';
import { useSeries } from '../api/public-hooks.js';
import { queryKeys } from '../api/queryKeys.js';
import type { paths } from '../api/schema.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useLocale } from '../i18n/customer-language.js';
import { formatDateTime, formatTime } from '../lib/time.js';
import { ConfirmBox } from './ConfirmBox.js';
import { statusKey } from './Reservation.js';

type SeriesAnswer =
  paths['/api/public/reservations/{token}/series']['get']['responses'][200]['content']['application/json'];

/** Cancelling every date of the series, once asked whether to; the reservation shown is read again. */
function useCancelSeries(token: string) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/series/cancel', { params: { path: { token } } })),
    onSuccess: (next: SeriesAnswer) => {
      queryClient.setQueryData(queryKeys.series(token), next);
      setConfirming(false);
      return queryClient.invalidateQueries({ queryKey: queryKeys.managed(token) });
    },
  });
  return { cancel, confirming, setConfirming };
}

/** On the manage page: every date of the reservation's series, and cancelling all of them. */
export function ManageSeries(props: { token: string; currentId: number; zone: string }) {
  const { token, currentId, zone } = props;
  const { cancel, confirming, setConfirming } = useCancelSeries(token);
  const series = useSeries(token);
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  if (series.isPending) return <p className="loading">{t('series.loadingDates')}</p>;
  if (series.isError)
    return (
      <div role="alert" className="error">
        <p>{t('series.datesFailed', { reason: errorText(series.error) })}</p>
      </div>
    );
  const now = Date.now();
  const cancellable = series.data.reservations.some(
    (r) =>
      Date.parse(r.startTime) > now &&
      (r.status === 'held' || r.status === 'pending_payment' || r.status === 'confirmed'),
  );
  return (
    <section aria-labelledby="series-heading" className="series">
      <h2 id="series-heading">{t('series.everyDate')}</h2>
      <SeriesDates series={series.data} currentId={currentId} zone={zone} />
      {cancel.isError ? (
        <div role="alert" className="error">
          <p>{errorText(cancel.error)}</p>
        </div>
      ) : null}
      {cancellable && !confirming ? (
        <div className="actions">
          <button type="button" className="secondary danger" onClick={() => setConfirming(true)}>
            {t('series.cancelWhole')}
          </button>
        </div>
      ) : null}
      {cancellable && confirming ? (
        <ConfirmBox
          title={t('series.cancelTitle')}
          level={3}
          confirm={t('series.cancelYes')}
          keep={t('series.keep')}
          pending={cancel.isPending}
          onConfirm={() => cancel.mutate()}
          onKeep={() => setConfirming(false)}
        >
          <p>{t('series.cancelBody')}</p>
        </ConfirmBox>
      ) : null}
    </section>
  );
}

/** The series' dates with their status, the one this page manages marked. */
function SeriesDates(props: { series: SeriesAnswer; currentId: number; zone: string }) {
  const { series, currentId, zone } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <ol className="series-dates">
      {series.reservations.map((r) => (
        <li key={r.id} aria-current={r.id === currentId ? 'true' : undefined}>
          {formatDateTime(r.startTime, zone, locale)} – {formatTime(r.endTime, zone, locale)}:{' '}
          <span className={`status-${r.status}`}>{t(statusKey(r.status))}</span>
          {r.id === currentId ? <strong> {t('series.thisBooking')}</strong> : null}
        </li>
      ))}
    </ol>
  );
}
