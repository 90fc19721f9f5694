// The troubleshooter's pieces of a day: its hours in the organisation's time zone (23 or 25 on
// the days the clocks change), and what each hour's cell of a resource shows.
import type { Hour } from '../../api/explain-hooks.js';
import type { ExplainedResource } from '../../api/types.js';
import { instantOf } from '../../lib/time.js';
import { addDays } from '../week.js';

const HOUR = 3_600_000;

/** The hours of `day` (YYYY-MM-DD) in `zone`, from its midnight to the next; none for no day. */
export function hoursOf(day: string, zone: string): Hour[] {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) return [];
  const from = instantOf(`${day}T00:00`, zone);
  const to = instantOf(`${addDays(day, 1)}T00:00`, zone);
  if (!from || !to) return [];
  const end = Date.parse(to);
  const hours: Hour[] = [];
  for (let at = Date.parse(from); at < end; at += HOUR)
    hours.push({ start: new Date(at).toISOString(), end: new Date(Math.min(at + HOUR, end)).toISOString() });
  return hours;
}

/** What an hour's cell shows: free, or its first reason's code and message (and the others' codes). */
export function cellOf(explained: ExplainedResource | undefined) {
  if (!explained) return { kind: 'unknown' as const };
  const [first, ...others] = explained.reasons;
  if (explained.bookable || !first) return { kind: 'free' as const };
  return {
    kind: 'reason' as const,
    code: first.code,
    message: first.message,
    others: [...new Set(others.map((r) => r.code).filter((c) => c !== first.code))],
  };
}
