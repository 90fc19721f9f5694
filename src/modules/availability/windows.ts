import type { Interval, Lane, Rules, Slot } from './engine.js';
import { freeTime, freeTimeRoom, scratchOf } from './free-time.js';
import { openIntervals, overridesOf, perSchedule, shiftSlots } from './schedule-instants.js';
import { overlapsAny } from './spans.js';

/** What a range offers: continuous windows and shift slots, with how many lanes have each free. */

/**
 * The span whose reservations and opening hours decide availability inside
 * `range`: a free stretch crossing the range edge counts at its full length.
 */
export function widen(range: Interval, rules: Rules): Interval {
  const margin = rules.minBookingMs + rules.bufferMs;
  return { start: range.start - margin, end: range.end + margin };
}

/**
 * `values[0, n)` in ascending order, merging the ascending runs they already hold pairwise
 * (each lane's edges come in order, so there are about as many runs as lanes).
 * TypedArray#sort boxed every number while sorting: most of an answer's garbage.
 */
function sortedRuns(values: Float64Array, n: number): Float64Array {
  let bounds = [0];
  for (let i = 1; i < n; i++) if (values[i]! < values[i - 1]!) bounds.push(i);
  bounds.push(n);
  let from: Float64Array = values;
  let to: Float64Array = new Float64Array(n);
  while (bounds.length > 2) {
    const merged = [0];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const lo = bounds[r]!;
      const mid = bounds[r + 1]!;
      const hi = r + 2 < bounds.length ? bounds[r + 2]! : mid;
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) to[k++] = from[i]! <= from[j]! ? from[i++]! : from[j++]!;
      while (i < mid) to[k++] = from[i++]!;
      while (j < hi) to[k++] = from[j++]!;
      merged.push(hi);
    }
    [from, to] = [to, from];
    bounds = merged;
  }
  return from.subarray(0, n);
}

/**
 * Continuous mode: maximal windows where at least one lane is free for the minimum
 * booking duration, split where the number of free lanes changes, each handed to `emit`
 * as it closes, in start order (so an answer builds its own objects, and no other).
 */
export function continuousWindows(
  lanes: Lane[],
  zone: string,
  range: Interval,
  rules: Rules,
  emit: (start: number, end: number, freeLanes: number) => void,
): void {
  // Judge each free stretch by its whole length, not by the part inside the range.
  const wide = widen(range, rules);
  // Free stretches open and close as plain numbers sorted apart, then swept together:
  // sorting one array of edge objects was the largest cost with many lanes.
  const hoursOf = lanes.map((lane) =>
    perSchedule(lane.schedule, `open|${zone}|${wide.start}|${wide.end}`, () =>
      openIntervals(lane.schedule.operatingHours, zone, wide, overridesOf(lane.schedule)),
    ),
  );
  let room = 0;
  lanes.forEach((lane, i) => {
    room += freeTimeRoom(hoursOf[i]!, lane.busy) / 2;
  });
  const opens = new Float64Array(room);
  const closes = new Float64Array(room);
  let count = 0;
  lanes.forEach((lane, i) => {
    const hours = hoursOf[i]!;
    // Outside the bookable span nothing is offered: free time there is cut off, and what
    // is left must still be the minimum long.
    const stretches = scratchOf(freeTimeRoom(hours, lane.busy));
    const written = freeTime(hours, rules.bookable, lane.busy, rules.bufferMs, rules.minBookingMs, stretches);
    for (let k = 0; k < written; k += 2) {
      const start = Math.max(stretches[k]!, range.start);
      const end = Math.min(stretches[k + 1]!, range.end);
      if (end > start) {
        opens[count] = start;
        closes[count] = end;
        count++;
      }
    }
  });
  sweepEdges(sortedRuns(opens, count), sortedRuns(closes, count), emit);
}

/**
 * Walks the sorted opening and closing instants of free stretches together, handing `emit`
 * each window where the number of free lanes stays the same (none while no lane is free).
 */
function sweepEdges(
  starts: Float64Array,
  ends: Float64Array,
  emit: (start: number, end: number, freeLanes: number) => void,
): void {
  // The window being built: from `since` with `free` lanes free (none open while 0).
  let free = 0;
  let since = 0;
  let s = 0;
  let e = 0;
  while (s < starts.length || e < ends.length) {
    const at = s < starts.length && starts[s]! < ends[e]! ? starts[s]! : ends[e]!;
    let now = free;
    while (s < starts.length && starts[s] === at) {
      now++;
      s++;
    }
    while (e < ends.length && ends[e] === at) {
      now--;
      e++;
    }
    if (now === free) continue;
    if (free > 0) emit(since, at, free);
    free = now;
    since = at;
  }
}

/**
 * Shifts mode: every configured slot in the range, with how many lanes have it free. A
 * slot not wholly inside `bookable` (the rules' span) is listed with no lane free.
 */
export function shiftAvailability(lanes: Lane[], zone: string, range: Interval, bookable?: Interval): Slot[] {
  const slots = new Map<string, Slot>();
  for (const lane of lanes) {
    const laneSlots = perSchedule(lane.schedule, `slots|${zone}|${range.start}|${range.end}`, () =>
      shiftSlots(lane.schedule.shiftSchedule, zone, range, overridesOf(lane.schedule)),
    );
    for (const s of laneSlots) {
      const key = `${s.start}:${s.end}`;
      let slot = slots.get(key);
      if (!slot) {
        slot = { ...s, available: false, freeLanes: 0, totalLanes: 0 };
        slots.set(key, slot);
      }
      slot.totalLanes += 1;
      const allowed = !bookable || (s.start >= bookable.start && s.end <= bookable.end);
      if (allowed && !overlapsAny(lane.busy, s.start, s.end)) {
        slot.freeLanes += 1;
        slot.available = true;
      }
    }
  }
  return [...slots.values()].sort((a, b) => a.start - b.start || a.end - b.end);
}
