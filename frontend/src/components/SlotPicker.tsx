import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type AvailabilityTarget, usePublicAvailability } from '../api/public-hooks.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useLocale } from '../i18n/customer-language.js';
import {
  addMonths,
  type BookableTime,
  bookableTimes,
  dayKey,
  type Month,
  monthOf,
  monthRange,
  timesByDay,
} from '../lib/time.js';
import { MonthView } from './MonthView.js';
import { TimeList } from './TimeList.js';

export type Target = AvailabilityTarget;

/** How many empty months the picker skips on its own before showing one as empty. */
const AUTO_ADVANCE_MONTHS = 2;

/** The month shown, its free times by day, the day open, and turning to another month. */
function useMonthOfTimes(slug: string, target: Target, durationMinutes: number, zone: string) {
  const [now] = useState(() => Date.now());
  const thisMonth = monthOf(dayKey(now, zone));
  const [month, setMonth] = useState<Month>(thisMonth);
  const [day, setDay] = useState<string | null>(null);
  const [advanced, setAdvanced] = useState(0);
  const range = monthRange(month, now);

  const query = usePublicAvailability(slug, target, range);

  const days = useMemo(() => {
    const times = query.data ? bookableTimes(query.data, durationMinutes, now) : [];
    const inMonth = new Map(
      [...timesByDay(times, zone)].filter(([key]) => {
        const m = monthOf(key);
        return m.year === month.year && m.month === month.month;
      }),
    );
    return inMonth;
  }, [query.data, durationMinutes, now, zone, month]);

  // The first free day is open from the start; an empty month moves on by itself, twice at most.
  useEffect(() => {
    if (!query.isSuccess) return;
    if (days.size === 0) {
      if (advanced < AUTO_ADVANCE_MONTHS && day === null) {
        setAdvanced((n) => n + 1);
        setMonth((m) => addMonths(m, 1));
      }
      return;
    }
    if (day === null || !days.has(day)) setDay(days.keys().next().value ?? null);
  }, [query.isSuccess, days, day, advanced]);

  const canGoBack =
    month.year > thisMonth.year || (month.year === thisMonth.year && month.month > thisMonth.month);
  const turnMonth = (delta: number) => {
    setAdvanced(AUTO_ADVANCE_MONTHS);
    setDay(null);
    setMonth((m) => addMonths(m, delta));
  };
  return {
    query,
    loading: query.isPending && range !== null,
    month,
    days,
    day,
    setDay,
    canGoBack,
    turnMonth,
  };
}

/** The month view and the chosen day's times of one resource or type, in `zone`. */
export function SlotPicker(props: {
  slug: string;
  target: Target;
  durationMinutes: number;
  zone: string;
  selected: string | null;
  onSelect: (time: BookableTime) => void;
}) {
  const { slug, target, durationMinutes, zone, selected, onSelect } = props;
  const { query, loading, month, days, day, setDay, canGoBack, turnMonth } = useMonthOfTimes(
    slug,
    target,
    durationMinutes,
    zone,
  );
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  const locale = useLocale();
  return (
    <div className="picker">
      {query.isError ? (
        <p role="alert" className="error">
          {errorText(query.error)}{' '}
          <button type="button" className="link" onClick={() => query.refetch()}>
            {t('common.tryAgain')}
          </button>
        </p>
      ) : null}
      <MonthView
        month={month}
        freeDays={new Set(days.keys())}
        selected={day}
        loading={loading}
        canGoBack={canGoBack}
        onMonth={turnMonth}
        onSelect={setDay}
        locale={locale}
      />
      {day ? (
        <TimeList
          day={day}
          times={days.get(day) ?? []}
          zone={zone}
          selected={selected}
          onSelect={onSelect}
          locale={locale}
        />
      ) : null}
    </div>
  );
}
