import type { Interval } from './engine.js';

/** The booking rules that bound when a booking may lie, relative to now. */
export interface WindowRules {
  minNoticeMinutes?: number | undefined;
  maxAdvanceDays?: number | undefined;
}

/** Where bookings may lie at some instant, and the first instant at which that changes. */
export interface BookableSpan extends Interval {
  changesAt: number;
}

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/**
 * The span a booking may occupy at `now`: starting no earlier than `minNoticeMinutes`
 * from now, ending no later than `maxAdvanceDays` (of 24 hours) from now. Both edges
 * fall on whole minutes, inward (the start rounded up, the end down), so availability
 * answers and the write checks draw the same line and the span stays the same for the
 * rest of the minute: `changesAt` is the first instant it differs. Undefined when
 * neither rule is set.
 */
export function bookableSpan(rules: WindowRules | null, now: number): BookableSpan | undefined {
  const notice = rules?.minNoticeMinutes;
  const advance = rules?.maxAdvanceDays;
  if (notice === undefined && advance === undefined) return undefined;
  let start = Number.NEGATIVE_INFINITY;
  let end = Number.POSITIVE_INFINITY;
  let changesAt = Number.POSITIVE_INFINITY;
  if (notice !== undefined) {
    start = Math.ceil((now + notice * MINUTE) / MINUTE) * MINUTE;
    // The rounded start holds while now + notice <= start.
    changesAt = start - notice * MINUTE + 1;
  }
  if (advance !== undefined) {
    end = Math.floor((now + advance * DAY) / MINUTE) * MINUTE;
    // The rounded end holds while now + advance < end + a minute.
    changesAt = Math.min(changesAt, end + MINUTE - advance * DAY);
  }
  return { start, end, changesAt };
}
