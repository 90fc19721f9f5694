import type { AvailabilityMode } from '../../scheduling/schemas.js';
import type { EffectiveSchedule, Interval, Rules } from './engine.js';
import { openIntervals, overridesOf, shiftSlots } from './schedule-instants.js';
import type { Spans } from './spans.js';

const MINUTE = 60_000;

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
