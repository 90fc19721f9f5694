// The troubleshooter's table: a row per hour of the day, a column per resource, each cell free
// or its first reason's code and message (coloured by the code, never by colour alone).
import { type ExplainTarget, type Hour, useExplanations } from '../../api/explain-hooks.js';
import type { ExplainedResource, Explanation } from '../../api/types.js';
import { formatTime } from '../../lib/time.js';
import { LoadError, Loading } from '../ui.js';
import { cellOf } from './hours.js';

interface Column {
  resourceId: number;
  /** Its explanation for each hour, in the hours' order. */
  hours: (ExplainedResource | undefined)[];
}

/** Every resource the answers name, each with its explanation of every hour. */
function columnsOf(answers: Explanation[][]): Column[] {
  return answers.flatMap((byHour) => {
    const ids = [...new Set(byHour.flatMap((a) => a.resources.map((r) => r.resourceId)))];
    return ids.map((resourceId) => ({
      resourceId,
      hours: byHour.map((a) => a.resources.find((r) => r.resourceId === resourceId)),
    }));
  });
}

export function HourGrid(props: {
  targets: ExplainTarget[];
  hours: Hour[];
  zone: string;
  caption: string;
  resourceName: (id: number) => string;
}) {
  const { targets, hours, zone, caption, resourceName } = props;
  const answers = useExplanations(targets, hours);
  const failed = answers.find((a) => a.isError);
  if (failed) return <LoadError error={failed.error} />;
  if (answers.some((a) => a.isPending)) return <Loading />;
  const columns = columnsOf(answers.map((a) => a.data ?? []));
  if (columns.length === 0) return <p className="empty">Nothing to explain: no resource.</p>;
  return (
    // A wide table scrolls on its own, by keyboard too, never the page.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard
    <section className="hour-grid" aria-labelledby="hour-grid-caption" tabIndex={0}>
      <table>
        <caption id="hour-grid-caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Hour</th>
            {columns.map((c) => (
              <th scope="col" key={c.resourceId}>
                {resourceName(c.resourceId)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {hours.map((hour, i) => (
            <tr key={hour.start}>
              <th scope="row">
                {formatTime(hour.start, zone)}–{formatTime(hour.end, zone)}
              </th>
              {columns.map((c) => (
                <HourCell key={c.resourceId} explained={c.hours[i]} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function HourCell(props: { explained: ExplainedResource | undefined }) {
  const cell = cellOf(props.explained);
  if (cell.kind === 'unknown') return <td className="hour">Not known</td>;
  if (cell.kind === 'free')
    return (
      <td className="hour free" data-code="FREE">
        Free
      </td>
    );
  return (
    <td className={`hour reason-${cell.code.toLowerCase()}`} data-code={cell.code}>
      <code>{cell.code}</code> {cell.message}
      {cell.others.length ? <span className="also"> Also: {cell.others.join(', ')}</span> : null}
    </td>
  );
}
