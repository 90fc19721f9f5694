import type { EffectiveSchedule, Interval, Rules } from './engine.js';
import { bufferOf, isClear, scheduleAdmits } from './fits.js';
import { localDays } from './local-days.js';
import { openIntervals, overridesOf, shiftSlots } from './schedule-instants.js';
import type { ReasonCode } from './schemas.js';
import { disjointSpans, type Spans, sortedSpans } from './spans.js';

/**
 * Why the engine does not offer a time: its own checks (fits.ts, the rules' bookable span,
 * the lanes' busy time) asked of one request, each failure named with the part of the
 * request it covers. A request is bookable exactly when no reason is found; the checks are
 * the ones availability and booking use, so the answer cannot drift from theirs.
 */

const MINUTE = 60_000;

/** A reason as the engine finds it: instants in epoch ms. */
export interface FoundReason {
  code: ReasonCode;
  message: string;
  from?: number;
  to?: number;
}

/** What takes a lane's time, by kind: the spans availability merges into the lane's busy time. */
export interface LaneTakers {
  booked: Spans;
  held: Spans;
  calendar: Spans;
  /** The local days on which the lane already keeps its daily cap of bookings (daily-caps.ts). */
  capped: Spans;
}

/** One resource (its lanes pooled) as the engine judges a request on it. */
export interface ExplainedBookable {
  schedule: EffectiveSchedule;
  lanes: LaneTakers[];
}

const part = (code: ReasonCode, message: string, from: number, to: number): FoundReason => ({
  code,
  message,
  from,
  to,
});

/** Every reason `request` is not bookable on `bookable` (none: it is). */
export function reasonsFor(
  bookable: ExplainedBookable,
  zone: string,
  request: Interval,
  rules: Rules,
): FoundReason[] {
  return [
    ...scheduleReasons(bookable.schedule, zone, request, rules),
    ...windowReasons(request, rules),
    ...laneReasons(bookable, request, rules),
  ];
}

/** The opening hours or shift slots: outside them, on a closed day, off the slots, or too short. */
function scheduleReasons(
  schedule: EffectiveSchedule,
  zone: string,
  request: Interval,
  rules: Rules,
): FoundReason[] {
  const failure = scheduleAdmits(schedule, zone, request, rules);
  if (failure === null) return [];
  if (failure === 'too_short') {
    const minutes = rules.minBookingMs / MINUTE;
    const reasons = [
      { code: 'TOO_SHORT' as const, message: `Shorter than the minimum booking of ${minutes} minutes` },
    ];
    // The hours are judged too: a short request outside them has both reasons.
    return [...reasons, ...closedParts(schedule, zone, request)];
  }
  if (failure === 'not_a_slot') {
    const closed = closedDays(schedule, zone, request);
    return closed.length > 0 ? closed : [{ code: 'OFF_GRID', message: 'Not one of the configured slots' }];
  }
  return closedParts(schedule, zone, request);
}

/** The local days `request` touches, each cut to it, and whether the schedule opens on it at all. */
function daysOf(schedule: EffectiveSchedule, zone: string, request: Interval) {
  const overrides = overridesOf(schedule);
  const days = localDays(request, zone);
  return days.flatMap((day, i) => {
    const whole = { start: day.toMillis(), end: days[i + 1]?.toMillis() ?? day.plus({ days: 1 }).toMillis() };
    const from = Math.max(whole.start, request.start);
    const to = Math.min(whole.end, request.end);
    if (to <= from) return [];
    const open =
      schedule.availabilityMode === 'shifts'
        ? shiftSlots(schedule.shiftSchedule, zone, whole, overrides).length > 0
        : openIntervals(schedule.operatingHours, zone, whole, overrides).length > 0;
    return [{ from, to, open }];
  });
}

/** Shifts: the days of `request` with no slot at all. */
function closedDays(schedule: EffectiveSchedule, zone: string, request: Interval): FoundReason[] {
  return daysOf(schedule, zone, request)
    .filter((day) => !day.open)
    .map((day) => part('CLOSED_DAY', 'Closed all day', day.from, day.to));
}

/** Continuous: the parts of `request` outside the opening hours, a closed day's part as CLOSED_DAY. */
function closedParts(schedule: EffectiveSchedule, zone: string, request: Interval): FoundReason[] {
  const around = { start: request.start - 1440 * MINUTE, end: request.end + 1440 * MINUTE };
  const open = openIntervals(schedule.operatingHours, zone, around, overridesOf(schedule));
  const reasons: FoundReason[] = [];
  for (const day of daysOf(schedule, zone, request)) {
    if (!day.open) {
      reasons.push(part('CLOSED_DAY', 'Closed all day', day.from, day.to));
      continue;
    }
    let cursor = day.from;
    for (const o of open) {
      if (o.end <= cursor || o.start >= day.to) continue;
      if (o.start > cursor) reasons.push(part('OUTSIDE_HOURS', 'Outside the opening hours', cursor, o.start));
      cursor = Math.max(cursor, o.end);
    }
    if (cursor < day.to) reasons.push(part('OUTSIDE_HOURS', 'Outside the opening hours', cursor, day.to));
  }
  return joined(reasons);
}

/** Reasons of one code that touch, as one (an opening that ends at midnight and the next day's closed hours). */
function joined(reasons: FoundReason[]): FoundReason[] {
  const out: FoundReason[] = [];
  for (const r of reasons) {
    const last = out[out.length - 1];
    if (last && last.code === r.code && last.to === r.from) last.to = r.to;
    else out.push({ ...r });
  }
  return out;
}

/** The type's notice and advance rules: the part of `request` outside the span a booking may lie in now. */
function windowReasons(request: Interval, { bookable }: Rules): FoundReason[] {
  if (!bookable) return [];
  const reasons: FoundReason[] = [];
  if (request.start < bookable.start) {
    const message = `Within the minimum notice: bookings start from ${new Date(bookable.start).toISOString()}`;
    reasons.push(part('NOTICE', message, request.start, Math.min(request.end, bookable.start)));
  }
  if (request.end > bookable.end) {
    const message = `Beyond the advance window: bookings end by ${new Date(bookable.end).toISOString()}`;
    reasons.push(part('ADVANCE', message, Math.max(request.start, bookable.end), request.end));
  }
  return reasons;
}

/** The busy time of a lane as the engine takes it: every kind merged. */
export const busyOf = (lane: LaneTakers): Spans =>
  disjointSpans(disjointSpans(sortedSpans(concat(lane.booked, lane.held)), lane.calendar), lane.capped);

function concat(a: Spans, b: Spans): Spans {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const TAKER_MESSAGES = {
  BOOKED: 'Taken by a reservation',
  HELD: 'Held for a booking in progress',
  CALENDAR_BUSY: "Busy in the manager's calendar",
  DAILY_CAP: 'The resource already has its most bookings for the day',
} as const;

const takerSpans = (lane: LaneTakers, code: keyof typeof TAKER_MESSAGES): Spans =>
  code === 'BOOKED'
    ? lane.booked
    : code === 'HELD'
      ? lane.held
      : code === 'CALENDAR_BUSY'
        ? lane.calendar
        : lane.capped;

/** What takes the time on every lane (none when one lane is clear): each taker's part, and its buffer's. */
function laneReasons(bookable: ExplainedBookable, request: Interval, rules: Rules): FoundReason[] {
  const bufferMs = bufferOf(bookable.schedule.availabilityMode, rules);
  if (bookable.lanes.some((lane) => isClear(busyOf(lane), request, bufferMs))) return [];
  const found = new Map<string, FoundReason>();
  const add = (reason: FoundReason) => found.set(`${reason.code}|${reason.from}|${reason.to}`, reason);
  const bufferMessage = `Within the ${bufferMs / MINUTE}-minute buffer kept around booked time`;
  for (const lane of bookable.lanes) {
    for (const code of ['BOOKED', 'HELD', 'CALENDAR_BUSY', 'DAILY_CAP'] as const) {
      const spans = takerSpans(lane, code);
      for (let k = 0; k < spans.length; k += 2) {
        const start = spans[k]!;
        const end = spans[k + 1]!;
        if (end + bufferMs <= request.start || start - bufferMs >= request.end) continue;
        const from = Math.max(start, request.start);
        const to = Math.min(end, request.end);
        if (to > from) add(part(code, TAKER_MESSAGES[code], from, to));
        for (const [a, b] of [
          [start - bufferMs, start],
          [end, end + bufferMs],
        ] as const) {
          const bufferFrom = Math.max(a, request.start);
          const bufferTo = Math.min(b, request.end);
          if (bufferTo > bufferFrom) add(part('BUFFER', bufferMessage, bufferFrom, bufferTo));
        }
      }
    }
  }
  return [...found.values()].sort((a, b) => a.from! - b.from! || a.to! - b.to!);
}
