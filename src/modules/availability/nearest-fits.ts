import type { Interval, Lane, Rules } from './engine.js';
import { freeTime, freeTimeRoom, scratchOf } from './free-time.js';
import { mergeIntervals, openIntervals, overridesOf, perSchedule, shiftSlots } from './schedule-instants.js';
import { overlapsAny } from './spans.js';

/** How alternatives to a refused time are looked for (`nearestFits`). */
export interface FitSearch {
  /** Starts are looked for in [from, to]. */
  from: number;
  to: number;
  /** The spacing of the starts tried inside free time, counted from the requested start. */
  stepMs: number;
  limit: number;
  /** Whether the caller takes a start (a customer's full day, say); every start when absent. */
  accept?: ((start: number) => boolean) | undefined;
}

/**
 * Up to `search.limit` times of the request's length, other than the request itself, that
 * fit one of `lanes` as a booking judges them, nearest to the requested start first
 * (before or after; the earlier of two as near). Continuous lanes: inside opening hours
 * and `rules.bookable`, clear of reservations by the buffer; the starts tried are the
 * first and last start of each free stretch (time a buffer leaves between reservations)
 * and the points `stepMs` apart counted from the requested start (so answers line up with
 * it). Shifts lanes: the free configured slots of exactly the request's length.
 */
export function nearestFits(
  lanes: Lane[],
  zone: string,
  request: Interval,
  rules: Rules,
  search: FitSearch,
): Interval[] {
  const length = request.end - request.start;
  const { from, to, stepMs, limit } = search;
  const found = new Set<number>();
  /** Keeps `start` unless it is the request itself, refused by the caller, or kept already. */
  const take = (start: number) => {
    if (start === request.start || found.has(start) || (search.accept && !search.accept(start))) return false;
    found.add(start);
    return true;
  };
  const ranges: Interval[] = [];
  // Free time is read beyond the searched starts, so a stretch's edges are its own, not the search's.
  const wide = { start: from - length - rules.bufferMs, end: to + length + rules.bufferMs };
  for (const lane of lanes) {
    if (lane.schedule.availabilityMode === 'shifts') {
      const range = { start: from, end: to + length };
      for (const slot of shiftSlots(lane.schedule.shiftSchedule, zone, range, overridesOf(lane.schedule))) {
        if (slot.end - slot.start !== length || slot.start > to) continue;
        if (rules.bookable && (slot.start < rules.bookable.start || slot.end > rules.bookable.end)) continue;
        if (!overlapsAny(lane.busy, slot.start, slot.end)) take(slot.start);
      }
      continue;
    }
    if (length < rules.minBookingMs) continue;
    const hours = perSchedule(lane.schedule, `open|${zone}|${wide.start}|${wide.end}`, () =>
      openIntervals(lane.schedule.operatingHours, zone, wide, overridesOf(lane.schedule)),
    );
    // Each stretch at least the request long gives the starts [its start, its end - length].
    const free = scratchOf(freeTimeRoom(hours, lane.busy));
    const written = freeTime(hours, rules.bookable, lane.busy, rules.bufferMs, length, free);
    for (let k = 0; k < written; k += 2) ranges.push({ start: free[k]!, end: free[k + 1]! - length });
  }
  for (const range of mergeIntervals(ranges)) {
    const lo = Math.max(range.start, from);
    const hi = Math.min(range.end, to);
    if (lo > hi) continue;
    // A stretch's own edges (not where the search cuts it).
    if (range.start >= from) take(range.start);
    if (range.end <= to) take(range.end);
    // The grid points nearest the request on each side of it, as many as could be answered.
    const first = Math.ceil((lo - request.start) / stepMs);
    const last = Math.floor((hi - request.start) / stepMs);
    const pivot = Math.min(Math.max(0, first), last);
    for (let k = pivot, taken = 0; k <= last && taken < limit; k++)
      if (take(request.start + k * stepMs)) taken++;
    for (let k = pivot - 1, taken = 0; k >= first && taken < limit; k--)
      if (take(request.start + k * stepMs)) taken++;
  }
  return [...found]
    .sort((a, b) => Math.abs(a - request.start) - Math.abs(b - request.start) || a - b)
    .slice(0, limit)
    .map((start) => ({ start, end: start + length }));
}
