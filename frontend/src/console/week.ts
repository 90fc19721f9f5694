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

/** How far `zone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
    .formatToParts(new Date(instant))
    .reduce<Record<string, number>>((acc, p) => Object.assign(acc, { [p.type]: Number(p.value) }), {});
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant of a wall-clock time (`YYYY-MM-DDTHH:mm`, as a datetime-local input gives it)
 * in `zone`. A time the clocks skip (spring forward) lands after the gap; a time they pass
 * twice (autumn) is its first occurrence. Null when the text is not such a time.
 */
export function instantOf(local: string, zone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  const guess = Date.UTC(y, mo - 1, d, h, mi);
  if (Number.isNaN(guess)) return null;
  // The earlier of the offsets around the guess wins, so a repeated hour reads as its first pass.
  const candidates = [offsetAt(guess - DAY / 2, zone), offsetAt(guess + DAY / 2, zone)]
    .map((offset) => guess - offset)
    .filter((t) => localOf(new Date(t).toISOString(), zone) === local)
    .sort((a, b) => a - b);
  const at = candidates[0] ?? guess - offsetAt(guess - DAY / 2, zone);
  return new Date(at).toISOString();
}

/** The wall-clock time (`YYYY-MM-DDTHH:mm`) of `instant` in `zone`, for a datetime-local input. */
export function localOf(instant: string, zone: string): string {
  const ms = Date.parse(instant);
  return new Date(ms + offsetAt(ms, zone)).toISOString().slice(0, 16);
}
