import { useTranslation } from 'react-i18next';
import type { BookableTime } from '../lib/time.js';
import { formatDay, formatTime } from '../lib/time.js';

declare module 'react' {
  // The Element Timing API's attribute (https://w3c.github.io/element-timing/), which React passes through.
  interface HTMLAttributes<T> {
    elementtiming?: string | undefined;
  }
}

/** The free times of one day, as buttons, read in `zone`. */
export function TimeList(props: {
  day: string;
  times: BookableTime[];
  zone: string;
  selected: string | null;
  onSelect: (time: BookableTime) => void;
  locale?: string | undefined;
}) {
  const { day, times, zone, selected, onSelect, locale } = props;
  const { t } = useTranslation();
  return (
    <section className="times" aria-labelledby="times-heading">
      <h3 id="times-heading">{formatDay(day, locale)}</h3>
      {times.length === 0 ? (
        <p className="empty">{t('picker.noTimesDay')}</p>
      ) : (
        <ul>
          {times.map((time, i) => (
            <li key={time.start}>
              <button
                type="button"
                className="time"
                aria-pressed={selected === time.start}
                data-start={time.start}
                // The browser's Element Timing entry of the first time: when slots became visible (bench/booking-page.ts).
                elementtiming={i === 0 ? 'first-slot' : undefined}
                onClick={() => onSelect(time)}
              >
                {formatTime(time.start, zone, locale)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
