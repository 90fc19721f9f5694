// What a schedule offers on the coming days, date by date (date overrides included, each with
// the level it comes from), and the dates with other hours further ahead.
import { dayKey, formatDay } from '../../lib/time.js';
import { addDays } from '../week.js';
import { dayWords, type Resolved } from './schedule-draft.js';

/** How many days from today the preview lists one by one. */
const PREVIEW_DAYS = 14;

const levelWords: Record<Resolved['dateOverrides'][number]['source'], string> = {
  organisation: 'the organisation',
  resourceType: 'its type',
  resource: 'the resource',
};

function overrideWords(override: Resolved['dateOverrides'][number] | undefined) {
  return override ? ` (date set by ${levelWords[override.source]})` : '';
}

export function SchedulePreview(props: {
  schedule: Resolved;
  zone: string;
  title: string;
  id: string;
  /** The title's heading level where the preview stands. */
  level: 3 | 4;
}) {
  const { schedule, zone, title, id } = props;
  const Heading = props.level === 3 ? 'h3' : 'h4';
  const Subheading = props.level === 3 ? 'h4' : 'h5';
  const today = dayKey(Date.now(), zone);
  const days = Array.from({ length: PREVIEW_DAYS }, (_, i) => addDays(today, i));
  const last = days.at(-1)!;
  const later = schedule.dateOverrides.filter((o) => o.date > last);
  return (
    <section className="schedule-preview" aria-labelledby={id}>
      <Heading id={id}>{title}</Heading>
      <p className="hint">Times in {zone}.</p>
      <table className="schedule-preview-days">
        <tbody>
          {days.map((date) => {
            const { text, override } = dayWords(schedule, date);
            return (
              <tr key={date} data-date={date}>
                <th scope="row">{formatDay(date)}</th>
                <td>
                  {text}
                  {overrideWords(override)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {later.length > 0 ? (
        <>
          <Subheading>Later dates with other hours</Subheading>
          <ul>
            {later.map((o) => (
              <li key={o.date} data-date={o.date}>
                {formatDay(o.date)}: {o.closed ? 'Closed' : `${o.openTime}–${o.closeTime}`}
                {overrideWords(o)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
