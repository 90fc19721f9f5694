import { DateTime } from 'luxon';

/**
 * Floating local time: a wall-clock time of the event's zone written into a Date's UTC
 * fields, the form the rrule library iterates on (see recurrence.ts).
 */

export const DAY_MS = 86_400_000;

/** Wall-clock time of `dt` written into UTC fields. */
export function floating(dt: DateTime): number {
  return Date.UTC(dt.year, dt.month - 1, dt.day, dt.hour, dt.minute, dt.second, dt.millisecond);
}

/** The real instant of a floating local time in `zone` (a time skipped by DST moves forward). */
export function fromFloating(ms: number, zone: string): DateTime {
  const d = new Date(ms);
  return DateTime.fromObject(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      millisecond: d.getUTCMilliseconds(),
    },
    { zone },
  );
}

/** The local date (`yyyy-MM-dd`) of a floating time. */
export const localDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// EXDATE values have whole seconds; a start with milliseconds still matches its second.
export const toSecond = (ms: number) => Math.floor(ms / 1000);
