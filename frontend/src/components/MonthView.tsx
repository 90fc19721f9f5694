import { type KeyboardEvent, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDay, formatMonth, type Month, monthGrid } from '../lib/time.js';

/** Monday to Sunday as the locale shortens them (4 to 10 January 2021 ran Monday to Sunday). */
function weekdays(locale: string | undefined): { key: number; short: string; long: string }[] {
  const short = new Intl.DateTimeFormat(locale, { weekday: 'short', timeZone: 'UTC' });
  const long = new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' });
  return [4, 5, 6, 7, 8, 9, 10].map((day) => {
    const date = new Date(Date.UTC(2021, 0, day, 12));
    return { key: day, short: short.format(date), long: long.format(date) };
  });
}

/**
 * A month of days; a day with free time is a button. Arrow keys move between days (one tab
 * stop for the grid), Enter or Space picks.
 */
export function MonthView(props: {
  month: Month;
  freeDays: Set<string>;
  selected: string | null;
  loading: boolean;
  canGoBack: boolean;
  onMonth: (delta: number) => void;
  onSelect: (day: string) => void;
  locale?: string | undefined;
}) {
  const { month, freeDays, loading, canGoBack, onMonth, locale } = props;
  const label = formatMonth(month, locale);
  const { t } = useTranslation();
  return (
    <section className="month" aria-labelledby="month-heading">
      <div className="month-nav">
        <button
          type="button"
          onClick={() => onMonth(-1)}
          disabled={!canGoBack}
          aria-label={t('picker.previousMonth')}
        >
          ‹
        </button>
        <h3 id="month-heading" aria-live="polite">
          {label}
        </h3>
        <button type="button" onClick={() => onMonth(1)} aria-label={t('picker.nextMonth')}>
          ›
        </button>
      </div>
      <DayGrid {...props} />
      {loading ? <p className="hint">{t('picker.looking')}</p> : null}
      {!loading && freeDays.size === 0 ? (
        <p className="empty">{t('picker.nothingFree', { month: label })}</p>
      ) : null}
    </section>
  );
}

/** Arrow keys on the grid: on to the next day with free times that way, else the first or last one. */
function useArrowKeys(days: string[], freeDays: Set<string>) {
  const grid = useRef<HTMLTableElement>(null);
  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>, day: string) {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[event.key];
    if (!step) return;
    event.preventDefault();
    const free = days.filter((d) => freeDays.has(d));
    let index = days.indexOf(day) + step;
    while (index >= 0 && index < days.length && !freeDays.has(days[index]!)) index += Math.sign(step);
    const target = days[index] ?? (step > 0 ? free.at(-1) : free[0]);
    grid.current?.querySelector<HTMLButtonElement>(`button[data-day="${target}"]`)?.focus();
  }
  return { grid, onKeyDown };
}

/** The month's weeks, a button for each day; the arrow keys skip the days with nothing free. */
function DayGrid(props: {
  month: Month;
  freeDays: Set<string>;
  selected: string | null;
  loading: boolean;
  onSelect: (day: string) => void;
  locale?: string | undefined;
}) {
  const { month, freeDays, selected, loading, onSelect, locale } = props;
  const weeks = monthGrid(month);
  const days = weeks.flat().filter((d): d is string => d !== null);
  const focusable = selected && freeDays.has(selected) ? selected : days.find((d) => freeDays.has(d));
  const { grid, onKeyDown } = useArrowKeys(days, freeDays);
  const { t } = useTranslation();
  return (
    <table ref={grid} aria-labelledby="month-heading" aria-busy={loading}>
      <thead>
        <tr>
          {weekdays(locale).map((d) => (
            <th key={d.key} scope="col">
              <abbr title={d.long}>{d.short}</abbr>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {weeks.map((week) => (
          <tr key={week.find(Boolean) ?? ''}>
            {week.map((day, i) =>
              day === null ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: the blank cells of a week have no identity
                <td key={i} />
              ) : (
                <td key={day}>
                  <button
                    type="button"
                    className="day"
                    data-day={day}
                    disabled={!freeDays.has(day)}
                    aria-pressed={selected === day}
                    aria-label={t(freeDays.has(day) ? 'picker.dayFree' : 'picker.dayNotFree', {
                      day: formatDay(day, locale),
                    })}
                    tabIndex={day === focusable ? 0 : -1}
                    onKeyDown={(e) => onKeyDown(e, day)}
                    onClick={() => onSelect(day)}
                  >
                    {Number(day.slice(8))}
                  </button>
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
