// The console's calendar arithmetic, free of React and the DOM so test/frontend can check it:
// which week a day belongs to, the range to ask the API for, and a wall-clock time typed in the
// organisation's zone as an instant (and back).
import { dayKey } from '../lib/time.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Zones lie 14 hours either side of UTC at most. */
const ZONE_MARGIN = 14 * 60 * MINUTE;

const utcOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
const keyOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The Monday (YYYY-MM-DD) of the week `day` falls in. */
export function mondayOf(day: string): string {
  const ms = utcOf(day);
  const weekday = (new Date(ms).getUTCDay() + 6) % 7;
  return keyOf(ms - weekday * DAY);
}

/** `day` moved by `n` days. */
export const addDays = (day: string, n: number) => keyOf(utcOf(day) + n * DAY);

/** The seven days of the week starting on `monday`. */
export const weekDays = (monday: string) => Array.from({ length: 7 }, (_, i) => addDays(monday, i));

/**
 * The range to list a week's reservations with: wide enough for the week's days in any zone
 * (the page keeps those whose start falls on one of them in the organisation's zone).
 */
export function weekRange(monday: string): { from: string; to: string } {
  return {
    from: new Date(utcOf(monday) - ZONE_MARGIN).toISOString(),
    to: new Date(utcOf(monday) + 7 * DAY + ZONE_MARGIN).toISOString(),
  };
}

/** The items grouped by the day their start falls on in `zone`, for the week's days only. */
export function byDayOfWeek<T extends { startTime: string }>(
  items: T[],
  monday: string,
  zone: string,
): Map<string, T[]> {
  const days = new Map(weekDays(monday).map((d) => [d, [] as T[]]));
  const sorted = [...items].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
  for (const item of sorted) days.get(dayKey(item.startTime, zone))?.push(item);
  return days;
}

/** Monday first, as the console's week view; `dayOfWeek` is the API's (0 = Sunday). */
export const WEEK = [
  { dayOfWeek: 1, name: 'Monday' },
  { dayOfWeek: 2, name: 'Tuesday' },
  { dayOfWeek: 3, name: 'Wednesday' },
  { dayOfWeek: 4, name: 'Thursday' },
  { dayOfWeek: 5, name: 'Friday' },
  { dayOfWeek: 6, name: 'Saturday' },
  { dayOfWeek: 0, name: 'Sunday' },
] as const;
