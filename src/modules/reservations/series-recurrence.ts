import { DateTime } from 'luxon';
import { invalidField } from '../../lib/errors.js';
import {
  type CompiledRecurrence,
  compileRecurrence,
  type Occurrence,
  OccurrenceLimitError,
  occurrencesBetween,
  RecurrenceError,
  type Series,
  seriesEnd,
} from '../events/recurrence.js';

/** Most occurrences one series books (DECISIONS.md). */
export const MAX_SERIES_OCCURRENCES = 104;
/** How far a series may reach: its last occurrence ends within this many years of its first start. */
export const MAX_SERIES_YEARS = 2;
/** The lines a reservation series takes; RDATE (extra dates) is left to events. */
const SERIES_LINES = new Set(['RRULE', 'EXDATE']);

const lineName = (line: string) => (line.split(/[:;]/, 1)[0] ?? '').trim().toUpperCase();

/** A series being expanded: its lines, its first occurrence as events reads it, and how far it may reach. */
interface Expansion {
  lines: readonly string[];
  series: Series;
  start: number;
  limitEnd: number;
}

/** `some` of the series' lines compiled; a bad one is a 400 naming it. */
function compile({ lines, series }: Expansion, some: readonly string[]) {
  try {
    return compileRecurrence(some, series);
  } catch (error) {
    if (error instanceof RecurrenceError)
      throw invalidField(`recurrence.${lines.indexOf(some[error.index]!)}`, error.message);
    throw error;
  }
}

/** The occurrences of `compiled` within the series' reach; more than MAX_SERIES_OCCURRENCES is a 400. */
function expand({ series, start, limitEnd }: Expansion, compiled: CompiledRecurrence) {
  try {
    return occurrencesBetween(series, compiled, start, limitEnd, MAX_SERIES_OCCURRENCES);
  } catch (error) {
    if (error instanceof OccurrenceLimitError)
      throw invalidField('recurrence', `a series has at most ${MAX_SERIES_OCCURRENCES} occurrences`);
    throw error;
  }
}

/**
 * The occurrences of a series whose first is [start, end), expanded in `timezone` by the
 * events module's RFC 5545 handling (wall-clock time kept across daylight-saving changes).
 * Bad lines, an endless rule, a series past the bounds and an EXDATE that is not one of
 * its occurrences are each a 400 naming the line.
 */
export function expandRecurrence(
  lines: readonly string[],
  start: number,
  end: number,
  timezone: string,
): Occurrence[] {
  lines.forEach((line, index) => {
    if (!SERIES_LINES.has(lineName(line)))
      throw invalidField(
        `recurrence.${index}`,
        'only RRULE and EXDATE lines are accepted for a reservation series',
      );
  });
  const series = {
    startTime: new Date(start).toISOString(),
    endTime: new Date(end).toISOString(),
    allDay: false,
    timezone,
  };
  const limitEnd = DateTime.fromMillis(start, { zone: timezone })
    .plus({ years: MAX_SERIES_YEARS })
    .toMillis();
  const expansion: Expansion = { lines, series, start, limitEnd };
  const compiled = compile(expansion, lines)!;
  if (!compiled.finite) {
    const endless = lines.findIndex((line) => lineName(line) === 'RRULE' && !/(COUNT|UNTIL)=/i.test(line));
    throw invalidField(
      `recurrence.${Math.max(endless, 0)}`,
      'an RRULE needs COUNT or UNTIL: a reservation series has a last occurrence',
    );
  }
  const occurrences = expand(expansion, compiled);
  const last = seriesEnd(series, compiled);
  if (last === null || Date.parse(last) > limitEnd)
    throw invalidField(
      'recurrence',
      `a series must end within ${MAX_SERIES_YEARS} years of its first start (by ${new Date(limitEnd).toISOString()})`,
    );
  checkExdates(expansion);
  if (occurrences.length === 0) throw invalidField('recurrence', 'leaves no occurrence to book');
  return occurrences;
}

/** Each EXDATE must take away as many occurrences as it names times: else one is not in the series. */
function checkExdates(expansion: Expansion) {
  const { lines } = expansion;
  const exdates = lines.filter((line) => lineName(line) === 'EXDATE');
  if (exdates.length === 0) return;
  const rules = lines.filter((line) => lineName(line) !== 'EXDATE');
  const all = expand(expansion, compile(expansion, rules)!).length;
  for (const line of exdates) {
    const named = line.slice(line.indexOf(':') + 1).split(',').length;
    if (all - expand(expansion, compile(expansion, [...rules, line])!).length !== named)
      throw invalidField(
        `recurrence.${lines.indexOf(line)}`,
        'names a time that is not an occurrence of the series (EXDATE must match an occurrence start in the organisation time zone)',
      );
  }
}
