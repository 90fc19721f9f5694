import {
  type CompiledRecurrence,
  compileRecurrence,
  OccurrenceLimitError,
  occurrencesBetween,
  RecurrenceError,
} from './recurrence.js';

/** The columns of a stored event that say when it takes time. */
export interface BusyEventRow {
  startTime: string;
  endTime: string;
  allDay: boolean | number;
  timezone: string;
  /** JSON array of RFC 5545 lines, or null. */
  recurrence: string | null;
  /** End of the last occurrence (null: no end); when known, a finite series is expanded once. */
  occursUntil?: string | null;
}

/** A span of taken time, epoch milliseconds, end exclusive. */
export interface BusySpan {
  start: number;
  end: number;
}

/** More occurrences than this of one series in one read is a series gone wrong: its whole range counts as busy. */
const MAX_OCCURRENCES_PER_EVENT = 20_000;

function compiled(row: BusyEventRow, lines: string[]): CompiledRecurrence | null {
  try {
    return compileRecurrence(lines, { ...row, allDay: Boolean(row.allDay) });
  } catch (error) {
    // A stored rule that no longer compiles shows as its first occurrence (as event listings do).
    if (error instanceof RecurrenceError) return null;
    throw error;
  }
}

/**
 * Occurrences of recurring events, kept by what the event says (rule, first occurrence,
 * zone): expanding a rule costs far more than reading its row (about a millisecond for a
 * weekly series), and rows change rarely. A finite series is expanded once, whole; an
 * endless one by 32-day windows. Keys hold every input of the expansion, so an entry is
 * never stale: a changed event is another key. Bounded: cleared when full.
 */
const EXPANSIONS_MAX = 20_000;
const WINDOW_MS = 32 * 86_400_000;
const expansions = new Map<string, BusySpan[] | null>();

function remember(key: string, spans: BusySpan[] | null): BusySpan[] | null {
  if (expansions.size >= EXPANSIONS_MAX) expansions.clear();
  expansions.set(key, spans);
  return spans;
}

/** Every occurrence of the series in [from, to), or null when there are too many to list. */
function expand(row: BusyEventRow, from: number, to: number): BusySpan[] | null {
  const series = { ...row, allDay: Boolean(row.allDay) };
  const rule = compiled(row, JSON.parse(row.recurrence!) as string[]);
  try {
    return occurrencesBetween(series, rule, from, to, MAX_OCCURRENCES_PER_EVENT).map((occurrence) => ({
      start: Date.parse(occurrence.start),
      end: Date.parse(occurrence.end),
    }));
  } catch (error) {
    if (error instanceof OccurrenceLimitError) return null;
    throw error;
  }
}

/** The occurrences of a recurring row overlapping [from, to), through the expansion cache. */
function occurrencesOf(row: BusyEventRow, from: number, to: number): BusySpan[] {
  const key = `${row.recurrence}|${row.startTime}|${row.endTime}|${Number(Boolean(row.allDay))}|${row.timezone}`;
  const first = Date.parse(row.startTime);
  if (row.occursUntil) {
    const whole = expansions.has(key)
      ? expansions.get(key)!
      : remember(key, expand(row, first, Date.parse(row.occursUntil) + 1));
    if (whole) return whole.filter((span) => span.start < to && span.end > from);
  }
  const spans: BusySpan[] = [];
  const seen = new Set<number>();
  for (let window = Math.floor(from / WINDOW_MS); window * WINDOW_MS < to; window++) {
    const bucket = `${key}|${window}`;
    const part = expansions.has(bucket)
      ? expansions.get(bucket)!
      : remember(bucket, expand(row, window * WINDOW_MS, (window + 1) * WINDOW_MS));
    // More than can be listed: the whole range counts as busy.
    if (!part) return [{ start: from, end: to }];
    for (const span of part)
      if (span.start < to && span.end > from && !seen.has(span.start)) {
        seen.add(span.start);
        spans.push(span);
      }
  }
  return spans;
}

/**
 * The time `rows` take within [from, to): a single event as itself, a recurring one
 * expanded in its own time zone (so a weekly 09:00 stays 09:00 across a daylight-saving
 * change), an all-day one as its whole local days (stored from local midnight to local
 * midnight of its zone). Unordered and possibly overlapping; readers merge. Nothing but
 * times: what the events are never leaves here.
 */
export function busySpans(rows: readonly BusyEventRow[], from: number, to: number): BusySpan[] {
  const spans: BusySpan[] = [];
  for (const row of rows) {
    if (row.recurrence === null) {
      const start = Date.parse(row.startTime);
      const end = Date.parse(row.endTime);
      if (start < to && end > from) spans.push({ start, end });
    } else spans.push(...occurrencesOf(row, from, to));
  }
  return spans;
}
