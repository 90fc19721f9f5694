import type {
  AvailabilityMode,
  DateOverride,
  OperatingHours,
  ShiftSchedule,
} from '../../scheduling/schemas.js';
import type { Spans } from './spans.js';

/**
 * The availability engine: pure functions over epoch-millisecond intervals.
 * Wall-clock times (`HH:mm`, weekday) are turned into instants in the
 * organisation's time zone day by day, so a 09:00 opening stays 09:00 local on
 * both sides of a daylight-saving change.
 *
 * This file holds the engine's shared types and is its surface for other modules. The parts:
 * booking-window.ts (where the booking rules let a booking lie now), local-days.ts and
 * schedule-instants.ts (opening hours and shift slots as instants), spans.ts (busy time:
 * sorting and merging), free-time.ts and windows.ts (what a range offers), fits.ts (whether
 * one request fits) and nearest-fits.ts (the alternatives to a refused one).
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

export interface Slot extends Interval {
  available: boolean;
  freeLanes: number;
  totalLanes: number;
}

export { type BookableSpan, bookableSpan, type WindowRules } from './booking-window.js';
export { bufferOf, type FitFailure, isClear, scheduleAdmits } from './fits.js';
export { type FitSearch, nearestFits } from './nearest-fits.js';
export { mergeIntervals, openIntervals, shiftSlots } from './schedule-instants.js';
export { disjointSpans, NO_SPANS, type Spans, sortedSpans } from './spans.js';
export { continuousWindows, shiftAvailability, widen } from './windows.js';
