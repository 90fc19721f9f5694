import { DateTime } from 'luxon';
import { DAY_MS, floating, fromFloating, localDay, toSecond } from './floating-time.js';
import { checkParams, parseContentLine, parseMoment, RecurrenceError } from './recurrence-lines.js';
import { parseRule, type Rule, scanPeriods } from './recurrence-rule.js';

/**
 * Recurrence of an event: RFC 5545 lines (`RRULE:`, `EXDATE:`, `RDATE:`), as
 * calendar providers exchange them, expanded in the event's own time zone.
 *
 * Expansion works in "floating" local time: the event's start is turned into its
 * wall-clock time in the event's zone, written into a Date's UTC fields, and the
 * rrule library iterates on those (it does all of its arithmetic in UTC fields).
 * Each occurrence is then turned back into a real instant in the zone with
 * luxon. So a weekly 09:00 Europe/Berlin meeting stays at 09:00 local across
 * daylight-saving changes, and an all-day event always starts at local midnight.
 *
 * Lines are read in recurrence-lines.ts, RRULE values in recurrence-rule.ts, floating
 * time in floating-time.ts; this file compiles a series' lines and expands them.
 */

export { RecurrenceError };

export interface Series {
  /** First occurrence (DTSTART), ISO-8601 UTC. */
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
}

export interface Occurrence {
  start: string;
  end: string;
}

/** More occurrences in the asked range than the caller allows. */
export class OccurrenceLimitError extends Error {}

export interface CompiledRecurrence {
  rules: Rule[];
  /** Extra occurrences (RDATE), floating local milliseconds. */
  rdates: number[];
  /** Excluded occurrence starts (EXDATE with a time), floating local seconds. */
  exdates: Set<number>;
  /** Excluded local dates (EXDATE;VALUE=DATE), `yyyy-MM-dd`. */
  exdays: Set<string>;
  /** True when every rule ends (COUNT or UNTIL), so the series has a last occurrence. */
  finite: boolean;
}

/** Series longer than this many occurrences are treated as open-ended for range queries. */
const FINITE_SCAN_LIMIT = 5000;
/** ...or whose end is more than this many periods (FREQ × INTERVAL steps) away. */
const FINITE_SCAN_PERIODS = 10_000;

function startFloatingOf(series: Series): number {
  return floating(DateTime.fromISO(series.startTime, { zone: series.timezone }));
}

/**
 * Checks and compiles recurrence lines for a series; throws RecurrenceError
 * naming the offending line. Null or an empty array means "not recurring".
 */
export function compileRecurrence(
  lines: readonly string[] | null | undefined,
  series: Series,
): CompiledRecurrence | null {
  if (!lines || lines.length === 0) return null;
  const zone = series.timezone;
  const start = startFloatingOf(series);
  const compiled: CompiledRecurrence = {
    rules: [],
    rdates: [],
    exdates: new Set(),
    exdays: new Set(),
    finite: true,
  };
  let recurs = false;
  lines.forEach((line, index) => {
    const { name, params, value } = parseContentLine(line, index);
    if (name === 'RRULE' || name === 'RDATE') recurs = true;
    switch (name) {
      case 'RRULE': {
        checkParams(name, params, index);
        // Null: DTSTART alone is all the rule gives (COUNT=1 when DTSTART is not one of its dates).
        const rule = parseRule(value, start, zone, index);
        if (!rule) break;
        if (!rule.options.count && !rule.options.until) compiled.finite = false;
        compiled.rules.push(rule);
        break;
      }
      case 'RDATE':
      case 'EXDATE':
        checkParams(name, params, index);
        for (const text of value.split(',')) {
          const moment = parseMoment(text.trim(), params, zone, index);
          if (name === 'EXDATE') {
            if (moment.kind === 'date') compiled.exdays.add(moment.day);
            else compiled.exdates.add(toSecond(moment.ms));
            continue;
          }
          // A date-only RDATE recurs at the series' own time of day.
          const ms = moment.kind === 'date' ? moment.ms + (((start % DAY_MS) + DAY_MS) % DAY_MS) : moment.ms;
          if (ms < start)
            throw new RecurrenceError('an RDATE must not be before the start of the event', index);
          compiled.rdates.push(ms);
        }
        break;
      default:
        throw new RecurrenceError(
          `${name || 'the line'} is not supported (use RRULE, EXDATE or RDATE)`,
          index,
        );
    }
  });
  if (!recurs) throw new RecurrenceError('a recurrence needs an RRULE or an RDATE line', 0);
  return compiled;
}

/** How an occurrence's end follows from its start: all-day events span whole local days. */
function spanOf(series: Series) {
  const zone = series.timezone;
  const start = DateTime.fromISO(series.startTime, { zone });
  const end = DateTime.fromISO(series.endTime, { zone });
  if (series.allDay) {
    const days = Math.round(end.startOf('day').diff(start.startOf('day'), 'days').days);
    return { approxMs: days * (DAY_MS + 3_600_000), endOf: (at: DateTime) => at.plus({ days }) };
  }
  const ms = end.toMillis() - start.toMillis();
  return { approxMs: ms, endOf: (at: DateTime) => at.plus({ milliseconds: ms }) };
}

function isExcluded(compiled: CompiledRecurrence, ms: number): boolean {
  return compiled.exdates.has(toSecond(ms)) || compiled.exdays.has(localDay(ms));
}

/**
 * Occurrences of a series that overlap [from, to) (epoch milliseconds), in start
 * order. A series without recurrence is its one occurrence. Throws
 * OccurrenceLimitError when more than `limit` occurrences fall in the range.
 */
export function occurrencesBetween(
  series: Series,
  compiled: CompiledRecurrence | null,
  from: number,
  to: number,
  limit: number,
): Occurrence[] {
  const zone = series.timezone;
  const span = spanOf(series);
  const overlapping = (startAt: DateTime): Occurrence | null => {
    const endAt = span.endOf(startAt);
    if (startAt.toMillis() >= to || endAt.toMillis() <= from) return null;
    return { start: startAt.toUTC().toISO()!, end: endAt.toUTC().toISO()! };
  };
  if (!compiled) {
    const single = overlapping(DateTime.fromISO(series.startTime, { zone }));
    return single ? [single] : [];
  }

  // Candidates are looked for with a day of slack on both sides (time-zone offsets),
  // then filtered exactly on real instants.
  const low = floating(DateTime.fromMillis(from - span.approxMs, { zone })) - DAY_MS;
  const high = floating(DateTime.fromMillis(to, { zone })) + DAY_MS;
  const candidates = new Set<number>();
  const add = (ms: number) => {
    if (ms < low || ms > high || isExcluded(compiled, ms)) return;
    candidates.add(ms);
    if (candidates.size > limit + 2) throw new OccurrenceLimitError();
  };
  // DTSTART is always the first occurrence (RFC 5545).
  add(startFloatingOf(series));
  for (const ms of compiled.rdates) add(ms);
  for (const rule of compiled.rules) {
    rule.between(new Date(low), new Date(high), true, (date) => {
      add(date.getTime());
      return true;
    });
  }

  const occurrences: Occurrence[] = [];
  for (const ms of [...candidates].sort((a, b) => a - b)) {
    const occurrence = overlapping(fromFloating(ms, zone));
    if (!occurrence) continue;
    occurrences.push(occurrence);
    if (occurrences.length > limit) throw new OccurrenceLimitError();
  }
  return occurrences;
}

/**
 * End of the series' last occurrence (ISO-8601 UTC), or null when it has none
 * (a rule without COUNT or UNTIL, or one too long to be worth scanning).
 * Range queries use it to skip series that ended before the range.
 */
export function seriesEnd(series: Series, compiled: CompiledRecurrence | null): string | null {
  if (!compiled) return series.endTime;
  if (!compiled.finite) return null;
  let last = startFloatingOf(series);
  for (const ms of compiled.rdates) last = Math.max(last, ms);
  for (const rule of compiled.rules) {
    let scanned = 0;
    let ruleLast: number | undefined;
    const spent = scanPeriods(rule, FINITE_SCAN_PERIODS, (date) => {
      scanned += 1;
      ruleLast = date.getTime();
      return scanned <= FINITE_SCAN_LIMIT;
    });
    if (spent || scanned > FINITE_SCAN_LIMIT) return null;
    if (ruleLast !== undefined) last = Math.max(last, ruleLast);
  }
  return spanOf(series).endOf(fromFloating(last, series.timezone)).toUTC().toISO()!;
}
