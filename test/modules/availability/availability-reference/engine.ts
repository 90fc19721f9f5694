// A frozen copy of the availability engine as it was before issue 14 (git show c73101f:src/modules/availability/engine.ts):
// the reference test/modules/availability/availability-equivalence.test.ts holds the live engine to. Never edit it to make a test pass.
import { DateTime } from 'luxon';
import {
  type AvailabilityMode,
  minutesOf,
  type OperatingHours,
  type ShiftSchedule,
} from '../../../../src/scheduling/schemas.js';

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
}

/** One schedulable unit: a capacity lane, or a resource without lanes. */
export interface Lane {
  resourceId: number;
  schedule: EffectiveSchedule;
  /** Existing reservations on this lane, any order. */
  busy: Interval[];
}

export interface Rules {
  minBookingMs: number;
  bufferMs: number;
}

export interface Window extends Interval {
  freeLanes: number;
  totalLanes: number;
}

export interface Slot extends Interval {
  available: boolean;
  freeLanes: number;
  totalLanes: number;
}

const MINUTE = 60_000;

/** Local dates (in `zone`) whose day touches [range.start, range.end), with their weekday 0..6 (Sunday 0). */
function localDays(range: Interval, zone: string): DateTime[] {
  const days: DateTime[] = [];
  // Start a day early: a day's hours may end after the range starts.
  let day = DateTime.fromMillis(range.start, { zone }).startOf('day').minus({ days: 1 });
  while (day.toMillis() < range.end) {
    days.push(day);
    day = day.plus({ days: 1 });
  }
  return days;
}

/** The instant of `minutes` after local midnight of `day` (1440 is the next local midnight). */
function atLocalMinutes(day: DateTime, minutes: number): number {
  if (minutes >= 1440) return day.plus({ days: 1 }).toMillis();
  return day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).toMillis();
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

/** Opening hours as merged instants inside `range`. */
export function openIntervals(hours: OperatingHours | null, zone: string, range: Interval): Interval[] {
  if (!hours) return [{ start: range.start, end: range.end }];
  const byDay = new Map(hours.filter((h) => h.isActive !== false).map((h) => [h.dayOfWeek, h]));
  const intervals: Interval[] = [];
  for (const day of localDays(range, zone)) {
    const entry = byDay.get(weekday(day));
    if (!entry) continue;
    intervals.push({
      start: atLocalMinutes(day, minutesOf(entry.openTime)),
      end: atLocalMinutes(day, minutesOf(entry.closeTime)),
    });
  }
  return clip(mergeIntervals(intervals), range);
}

/** Every configured shift slot lying wholly inside `range`, in start order. */
export function shiftSlots(schedule: ShiftSchedule | null, zone: string, range: Interval): Interval[] {
  if (!schedule) return [];
  const byDay = new Map(schedule.map((d) => [d.dayOfWeek, d.slots]));
  const slots: Interval[] = [];
  for (const day of localDays(range, zone)) {
    for (const slot of byDay.get(weekday(day)) ?? []) {
      const start = atLocalMinutes(day, minutesOf(slot.startTime));
      const end = atLocalMinutes(day, minutesOf(slot.endTime));
      if (start >= range.start && end <= range.end && end > start) slots.push({ start, end });
    }
  }
  return slots.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Existing reservations widened by the buffer on both sides, merged. */
function blocked(busy: Interval[], bufferMs: number): Interval[] {
  return mergeIntervals(busy.map((b) => ({ start: b.start - bufferMs, end: b.end + bufferMs })));
}

/** Open time of one lane not blocked by a (buffered) reservation, kept where at least `minBookingMs` long. */
function freeSegments(open: Interval[], blockedSorted: Interval[], minBookingMs: number): Interval[] {
  const free: Interval[] = [];
  let b = 0;
  for (const o of open) {
    let cursor = o.start;
    while (b < blockedSorted.length && blockedSorted[b]!.end <= cursor) b++;
    let k = b;
    while (k < blockedSorted.length && blockedSorted[k]!.start < o.end) {
      const block = blockedSorted[k]!;
      if (block.start > cursor) free.push({ start: cursor, end: block.start });
      cursor = Math.max(cursor, block.end);
      k++;
    }
    if (cursor < o.end) free.push({ start: cursor, end: o.end });
  }
  return free.filter((f) => f.end - f.start >= minBookingMs);
}

/**
 * Continuous mode: maximal windows where at least one lane is free for the
 * minimum booking duration, split where the number of free lanes changes.
 */
export function continuousWindows(lanes: Lane[], zone: string, range: Interval, rules: Rules): Window[] {
  // Judge each free stretch by its whole length, not by the part inside the range.
  const wide = widen(range, rules);
  const edges: Array<{ at: number; delta: number }> = [];
  for (const lane of lanes) {
    const open = perSchedule(lane.schedule, `open|${zone}|${wide.start}|${wide.end}`, () =>
      openIntervals(lane.schedule.operatingHours, zone, wide),
    );
    const free = freeSegments(open, blocked(lane.busy, rules.bufferMs), rules.minBookingMs);
    for (const f of clip(free, range)) edges.push({ at: f.start, delta: 1 }, { at: f.end, delta: -1 });
  }
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const windows: Window[] = [];
  let free = 0;
  let i = 0;
  while (i < edges.length) {
    const at = edges[i]!.at;
    const before = free;
    while (i < edges.length && edges[i]!.at === at) free += edges[i++]!.delta;
    if (free === before) continue;
    const open = windows[windows.length - 1];
    if (open && open.end === Number.POSITIVE_INFINITY) open.end = at;
    if (free > 0)
      windows.push({ start: at, end: Number.POSITIVE_INFINITY, freeLanes: free, totalLanes: lanes.length });
  }
  return windows;
}

/** True when some interval of `sorted` (by start) overlaps [start, end). */
function overlapsAny(sorted: Interval[], start: number, end: number): boolean {
  // Binary search for the first interval ending after `start`; reservations on one lane never overlap.
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo]!.start < end;
}

const byStart = (intervals: Interval[]) => mergeIntervals(intervals);

/** Shifts mode: every configured slot in the range, with how many lanes have it free. */
export function shiftAvailability(lanes: Lane[], zone: string, range: Interval): Slot[] {
  const slots = new Map<string, Slot>();
  for (const lane of lanes) {
    const busy = byStart(lane.busy);
    const laneSlots = perSchedule(lane.schedule, `slots|${zone}|${range.start}|${range.end}`, () =>
      shiftSlots(lane.schedule.shiftSchedule, zone, range),
    );
    for (const s of laneSlots) {
      const key = `${s.start}:${s.end}`;
      let slot = slots.get(key);
      if (!slot) {
        slot = { ...s, available: false, freeLanes: 0, totalLanes: 0 };
        slots.set(key, slot);
      }
      slot.totalLanes += 1;
      if (!overlapsAny(busy, s.start, s.end)) {
        slot.freeLanes += 1;
        slot.available = true;
      }
    }
  }
  return [...slots.values()].sort((a, b) => a.start - b.start || a.end - b.end);
}

export type FitFailure = 'too_short' | 'outside_hours' | 'not_a_slot' | 'taken';

/**
 * Whether [start, end) can be booked on `lane` exactly as asked: inside opening
 * hours, long enough and clear of every reservation by the buffer (continuous),
 * or exactly one configured slot that no reservation overlaps (shifts).
 */
export function checkFit(lane: Lane, zone: string, request: Interval, rules: Rules): FitFailure | null {
  const { start, end } = request;
  if (lane.schedule.availabilityMode === 'shifts') {
    const day: Interval = { start: start - 2 * 1440 * MINUTE, end: end + 2 * 1440 * MINUTE };
    const slot = shiftSlots(lane.schedule.shiftSchedule, zone, day).find(
      (s) => s.start === start && s.end === end,
    );
    if (!slot) return 'not_a_slot';
    return overlapsAny(byStart(lane.busy), start, end) ? 'taken' : null;
  }
  if (end - start < rules.minBookingMs) return 'too_short';
  const around: Interval = { start: start - 1440 * MINUTE, end: end + 1440 * MINUTE };
  const open = openIntervals(lane.schedule.operatingHours, zone, around);
  if (!open.some((o) => o.start <= start && o.end >= end)) return 'outside_hours';
  return overlapsAny(blocked(lane.busy, rules.bufferMs), start, end) ? 'taken' : null;
}
