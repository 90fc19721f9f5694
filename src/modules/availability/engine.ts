import { DateTime } from 'luxon';
import { ALWAYS_OPEN } from '../../scheduling/resolve.js';
import {
  type AvailabilityMode,
  type DateOverride,
  minutesOf,
  type OperatingHours,
  type ShiftSchedule,
} from '../../scheduling/schemas.js';
import { type OverridesByDate, overrideHours, overridesByDate } from './date-overrides.js';

/**
 * The availability engine: pure functions over epoch-millisecond intervals.
 * Wall-clock times (`HH:mm`, weekday) are turned into instants in the
 * organisation's time zone day by day, so a 09:00 opening stays 09:00 local on
 * both sides of a daylight-saving change.
 */

/** Half-open [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export interface EffectiveSchedule {
  availabilityMode: AvailabilityMode;
  /** null: open all day, every day. */
  operatingHours: OperatingHours | null;
  shiftSchedule: ShiftSchedule | null;
  /** Days whose hours differ from their weekday's, resolved per date; absent: none. */
  dateOverrides?: readonly DateOverride[] | undefined;
}

/** The date overrides of `schedule` by local date (undefined: none). */
const overridesOf = (schedule: EffectiveSchedule) => overridesByDate(schedule.dateOverrides);

/**
 * Intervals as one flat array of instants, `[start0, end0, start1, end1, ...]` (epoch ms,
 * each half-open). A month of a busy lane is hundreds of intervals, read and walked on
 * every answer: as numbers in one array they cost no object each.
 */
export type Spans = Float64Array;
export const NO_SPANS: Spans = new Float64Array(0);

/** One schedulable unit: a capacity lane, or a resource without lanes. */
export interface Lane {
  resourceId: number;
  schedule: EffectiveSchedule;
  /** What takes the lane's time (reservations, its manager's busy time): by start, none overlapping the next (`disjointSpans`). */
  busy: Spans;
}

export interface Rules {
  minBookingMs: number;
  bufferMs: number;
  /** Where a booking may lie now under the type's notice and advance rules; absent: anywhere. */
  bookable?: Interval;
}

/** The booking rules that bound when a booking may lie, relative to now. */
export interface WindowRules {
  minNoticeMinutes?: number | undefined;
  maxAdvanceDays?: number | undefined;
}

/** Where bookings may lie at some instant, and the first instant at which that changes. */
export interface BookableSpan extends Interval {
  changesAt: number;
}

export interface Slot extends Interval {
  available: boolean;
  freeLanes: number;
  totalLanes: number;
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

/**
 * Luxon's zone arithmetic costs an Intl lookup per step, about a hundred microseconds for
 * the two days of one booking. The steps are memoised, never changed: a local day is
 * always derived from the same luxon calls on the same inputs, so every answer stays
 * what luxon computes. Days are shared across requests; the maps hold at most
 * LOCAL_DAYS_MAX first days, and what hangs off a day goes with it.
 */
const LOCAL_DAYS_MAX = 10_000;
/** The first day of a range (a day before its start's), by zone, local date and offset. */
const firstDays = new Map<string, DateTime>();
const nextDays = new WeakMap<DateTime, DateTime>();
const instantsOfDay = new WeakMap<DateTime, Map<number, number>>();

/** Local dates (in `zone`) whose day touches [range.start, range.end), with their weekday 0..6 (Sunday 0). */
function localDays(range: Interval, zone: string): DateTime[] {
  const days: DateTime[] = [];
  const at = DateTime.fromMillis(range.start, { zone });
  // startOf starts from the instant's offset: part of what decides its answer.
  const key = `${zone}|${at.year}-${at.month}-${at.day}|${at.offset}`;
  let day = firstDays.get(key);
  if (!day) {
    // Start a day early: a day's hours may end after the range starts.
    day = at.startOf('day').minus({ days: 1 });
    if (firstDays.size >= LOCAL_DAYS_MAX) firstDays.clear();
    firstDays.set(key, day);
  }
  while (day.toMillis() < range.end) {
    days.push(day);
    let next = nextDays.get(day);
    if (!next) {
      next = day.plus({ days: 1 });
      nextDays.set(day, next);
    }
    day = next;
  }
  return days;
}

/** The instant of `minutes` after local midnight of `day` (1440 is the next local midnight). */
function atLocalMinutes(day: DateTime, minutes: number): number {
  let instants = instantsOfDay.get(day);
  if (!instants) {
    instants = new Map();
    instantsOfDay.set(day, instants);
  }
  let instant = instants.get(minutes);
  if (instant === undefined) {
    instant =
      minutes >= 1440
        ? day.plus({ days: 1 }).toMillis()
        : day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).toMillis();
    instants.set(minutes, instant);
  }
  return instant;
}

const weekday = (day: DateTime) => day.weekday % 7; // luxon: Monday 1 .. Sunday 7

function clip(intervals: Interval[], range: Interval): Interval[] {
  const clipped: Interval[] = [];
  for (const i of intervals) {
    const start = Math.max(i.start, range.start);
    const end = Math.min(i.end, range.end);
    if (end > start) clipped.push({ start, end });
  }
  return clipped;
}

/**
 * The span whose reservations and opening hours decide availability inside
 * `range`: a free stretch crossing the range edge counts at its full length.
 */
export function widen(range: Interval, rules: Rules): Interval {
  const margin = rules.minBookingMs + rules.bufferMs;
  return { start: range.start - margin, end: range.end + margin };
}

/**
 * Turning weekly hours into instants costs luxon zone work per day, and every lane
 * of a resource (and the pool and per-resource views of one request) shares one
 * schedule object: the result is kept on that object while it lives.
 */
const computedBySchedule = new WeakMap<EffectiveSchedule, Map<string, Interval[]>>();
function perSchedule(schedule: EffectiveSchedule, key: string, compute: () => Interval[]): Interval[] {
  let computed = computedBySchedule.get(schedule);
  if (!computed) {
    computed = new Map();
    computedBySchedule.set(schedule, computed);
  }
  let intervals = computed.get(key);
  if (!intervals) {
    intervals = compute();
    computed.set(key, intervals);
  }
  return intervals;
}

/** Sorts and joins overlapping or touching intervals. */
export function mergeIntervals(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const i of sorted) {
    const last = merged[merged.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else merged.push({ start: i.start, end: i.end });
  }
  return merged;
}

/**
 * Opening hours as merged instants inside `range`. A day `overrides` names takes the
 * override's hours (none when closed) instead of its weekday's.
 */
export function openIntervals(
  hours: OperatingHours | null,
  zone: string,
  range: Interval,
  overrides?: OverridesByDate,
): Interval[] {
  if (!hours && !overrides) return [{ start: range.start, end: range.end }];
  const weekly = (hours ?? ALWAYS_OPEN).filter((h) => h.isActive !== false);
  const byDay = new Map(weekly.map((h) => [h.dayOfWeek, h]));
  const intervals: Interval[] = [];
  for (const day of localDays(range, zone)) {
    const special = overrideHours(overrides, day);
    if (special !== undefined) {
      if (special)
        intervals.push({ start: atLocalMinutes(day, special.open), end: atLocalMinutes(day, special.close) });
      continue;
    }
    const entry = byDay.get(weekday(day));
    if (!entry) continue;
    intervals.push({
      start: atLocalMinutes(day, minutesOf(entry.openTime)),
      end: atLocalMinutes(day, minutesOf(entry.closeTime)),
    });
  }
  return clip(mergeIntervals(intervals), range);
}

/**
 * Every configured shift slot lying wholly inside `range`, in start order. On a day
 * `overrides` names, only the weekday's slots wholly inside the override's hours (none
 * when closed).
 */
export function shiftSlots(
  schedule: ShiftSchedule | null,
  zone: string,
  range: Interval,
  overrides?: OverridesByDate,
): Interval[] {
  if (!schedule) return [];
  const byDay = new Map(schedule.map((d) => [d.dayOfWeek, d.slots]));
  const slots: Interval[] = [];
  for (const day of localDays(range, zone)) {
    const special = overrideHours(overrides, day);
    if (special === null) continue;
    for (const slot of byDay.get(weekday(day)) ?? []) {
      const from = minutesOf(slot.startTime);
      const to = minutesOf(slot.endTime);
      if (special && (from < special.open || to > special.close)) continue;
      const start = atLocalMinutes(day, from);
      const end = atLocalMinutes(day, to);
      if (start >= range.start && end <= range.end && end > start) slots.push({ start, end });
    }
  }
  return slots.sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * `spans` sorted by start, in place (pairs kept together; equal starts in either order). Spans read from the database
 * come in start order, or nearly: a few out of place are moved, more are sorted whole.
 */
export function sortedSpans(spans: Spans): Spans {
  let descents = 0;
  for (let k = 2; k < spans.length; k += 2) if (spans[k]! < spans[k - 2]!) descents++;
  if (descents === 0) return spans;
  if (descents <= 32) {
    // Insertion sort: cheap while few are out of place.
    for (let k = 2; k < spans.length; k += 2) {
      const start = spans[k]!;
      const end = spans[k + 1]!;
      let at = k;
      for (; at > 0 && spans[at - 2]! > start; at -= 2) {
        spans[at] = spans[at - 2]!;
        spans[at + 1] = spans[at - 1]!;
      }
      spans[at] = start;
      spans[at + 1] = end;
    }
    return spans;
  }
  // Bottom-up merge sort of the pairs, by start then end.
  let from: Spans = spans;
  let to: Spans = new Float64Array(spans.length);
  for (let width = 2; width < spans.length; width *= 2) {
    for (let lo = 0; lo < spans.length; lo += 2 * width) {
      const mid = Math.min(lo + width, spans.length);
      const hi = Math.min(lo + 2 * width, spans.length);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k += 2) {
        const left =
          i < mid &&
          (j >= hi || from[i]! < from[j]! || (from[i] === from[j] && from[i + 1]! <= from[j + 1]!));
        const at = left ? i : j;
        to[k] = from[at]!;
        to[k + 1] = from[at + 1]!;
        if (left) i += 2;
        else j += 2;
      }
    }
    [from, to] = [to, from];
  }
  if (from !== spans) spans.set(from);
  return spans;
}

/**
 * The union of spans sorted by start, overlapping or touching ones joined (so the result
 * is by start and none overlaps the next). A single list with no overlap is answered as it
 * is: reservations on a lane touch but never overlap, and answers stay the same whether
 * touching spans are joined or not (the buffer is laid around each, and free time between
 * spans that touch, or overlap once buffered, is none either way).
 */
export function disjointSpans(a: Spans, b: Spans = NO_SPANS): Spans {
  if (b.length === 0 || a.length === 0) {
    const only = a.length === 0 ? b : a;
    let disjoint = true;
    for (let k = 2; disjoint && k < only.length; k += 2) disjoint = only[k]! >= only[k - 1]!;
    if (disjoint) return only;
  }
  const out = new Float64Array(a.length + b.length);
  let n = 0;
  for (let i = 0, j = 0; i < a.length || j < b.length; ) {
    let start: number;
    let end: number;
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) {
      start = a[i]!;
      end = a[i + 1]!;
      i += 2;
    } else {
      start = b[j]!;
      end = b[j + 1]!;
      j += 2;
    }
    if (n > 0 && start <= out[n - 1]!) {
      if (end > out[n - 1]!) out[n - 1] = end;
    } else {
      out[n++] = start;
      out[n++] = end;
    }
  }
  return n === out.length ? out : out.subarray(0, n);
}

/** Numbers `freeTime` may write for a lane: a piece before each block, and one after each opening. */
const freeTimeRoom = (open: Interval[], busy: Spans) => 2 * open.length + busy.length;
/** Where `freeTime` writes, reused (the engine is synchronous) and grown as lanes need. */
let scratch = new Float64Array(1024);
function scratchOf(size: number): Float64Array {
  if (scratch.length < size) scratch = new Float64Array(2 * size);
  return scratch;
}

/**
 * Open time of one lane (its opening hours `open`, cut to `within` when given) not blocked
 * by what takes its time (`busy`, each span widened by `bufferMs` on both sides), written
 * to `out` (room for `freeTimeRoom`) as start, end pairs in order where at least `minMs`
 * long; answers how many numbers it wrote. No object per interval, and no array grown
 * push by push: this runs for every lane of every answer.
 */
function freeTime(
  open: Interval[],
  within: Interval | undefined,
  busy: Spans,
  bufferMs: number,
  minMs: number,
  out: Float64Array,
): number {
  const blocks = busy.length;
  let n = 0;
  let b = 0;
  for (const o of open) {
    let cursor = within ? Math.max(o.start, within.start) : o.start;
    const end = within ? Math.min(o.end, within.end) : o.end;
    if (end <= cursor) continue;
    while (b < blocks && busy[b + 1]! + bufferMs <= cursor) b += 2;
    for (let k = b; k < blocks && busy[k]! - bufferMs < end; k += 2) {
      const blockStart = busy[k]! - bufferMs;
      if (blockStart > cursor && blockStart - cursor >= minMs) {
        out[n++] = cursor;
        out[n++] = blockStart;
      }
      cursor = Math.max(cursor, busy[k + 1]! + bufferMs);
    }
    if (cursor < end && end - cursor >= minMs) {
      out[n++] = cursor;
      out[n++] = end;
    }
  }
  return n;
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
  const starts = sortedRuns(opens, count);
  const ends = sortedRuns(closes, count);
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

/** True when some span of `busy` (by start, none overlapping the next) overlaps [start, end). */
function overlapsAny(busy: Spans, start: number, end: number): boolean {
  // Binary search for the first span ending after `start`: ends rise with starts.
  let lo = 0;
  let hi = busy.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (busy[2 * mid + 1]! <= start) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo < busy.length && busy[2 * lo]! < end;
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

export type FitFailure = 'too_short' | 'outside_hours' | 'not_a_slot';

/**
 * Whether [start, end) may be booked under `schedule`, reservations aside: inside
 * opening hours and at least the minimum long (continuous), or exactly one configured
 * slot (shifts). Every lane of a resource shares its schedule, so booking asks this
 * once per resource, not once per lane.
 */
export function scheduleAdmits(
  schedule: EffectiveSchedule,
  zone: string,
  request: Interval,
  rules: Rules,
): FitFailure | null {
  const { start, end } = request;
  if (schedule.availabilityMode === 'shifts') {
    const day: Interval = { start: start - 2 * 1440 * MINUTE, end: end + 2 * 1440 * MINUTE };
    const slot = shiftSlots(schedule.shiftSchedule, zone, day, overridesOf(schedule)).find(
      (s) => s.start === start && s.end === end,
    );
    return slot ? null : 'not_a_slot';
  }
  if (end - start < rules.minBookingMs) return 'too_short';
  const around: Interval = { start: start - 1440 * MINUTE, end: end + 1440 * MINUTE };
  const open = openIntervals(schedule.operatingHours, zone, around, overridesOf(schedule));
  return open.some((o) => o.start <= start && o.end >= end) ? null : 'outside_hours';
}

/** The buffer a reservation keeps clear around itself on a lane of this mode (shifts keep none). */
export const bufferOf = (mode: AvailabilityMode, rules: Rules) => (mode === 'shifts' ? 0 : rules.bufferMs);

/** Whether `request` keeps `bufferMs` clear of every span in `busy` (any order). */
export function isClear(busy: Spans, request: Interval, bufferMs: number): boolean {
  for (let k = 0; k < busy.length; k += 2)
    if (busy[k + 1]! + bufferMs > request.start && busy[k]! - bufferMs < request.end) return false;
  return true;
}

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
