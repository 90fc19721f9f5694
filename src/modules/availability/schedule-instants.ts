import { ALWAYS_OPEN } from '../../scheduling/resolve.js';
import { minutesOf, type OperatingHours, type ShiftSchedule } from '../../scheduling/schemas.js';
import { type OverridesByDate, overrideHours, overridesByDate } from './date-overrides.js';
import type { EffectiveSchedule, Interval } from './engine.js';
import { atLocalMinutes, localDays, weekday } from './local-days.js';

/**
 * A schedule's weekly hours, shift slots and date overrides as instants in a zone,
 * for the engine's answers and checks.
 */

/** The date overrides of `schedule` by local date (undefined: none). */
export const overridesOf = (schedule: EffectiveSchedule) => overridesByDate(schedule.dateOverrides);

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
 * Turning weekly hours into instants costs luxon zone work per day, and every lane
 * of a resource (and the pool and per-resource views of one request) shares one
 * schedule object: the result is kept on that object while it lives.
 */
const computedBySchedule = new WeakMap<EffectiveSchedule, Map<string, Interval[]>>();
export function perSchedule(schedule: EffectiveSchedule, key: string, compute: () => Interval[]): Interval[] {
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
