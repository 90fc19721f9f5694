import type { DateTime } from 'luxon';
import { type DateOverride, minutesOf } from '../../scheduling/schemas.js';

/**
 * A schedule's date overrides by local date (`YYYY-MM-DD`), for the engine's walk over
 * local days. Built once per resolved list while that list lives (every lane of a
 * resource, and every view of one answer, shares it).
 */
export type OverridesByDate = ReadonlyMap<string, DateOverride>;

const mapsByList = new WeakMap<readonly DateOverride[], OverridesByDate>();

/** The overrides of `list` by date; undefined when there are none (the engine's fast path). */
export function overridesByDate(list: readonly DateOverride[] | undefined): OverridesByDate | undefined {
  if (!list || list.length === 0) return undefined;
  let map = mapsByList.get(list);
  if (!map) {
    map = new Map(list.map((entry) => [entry.date, entry]));
    mapsByList.set(list, map);
  }
  return map;
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
const keysByDay = new WeakMap<DateTime, string>();

/** The local date of `day` (a local midnight), as `YYYY-MM-DD`. */
export function dateKeyOf(day: DateTime): string {
  let key = keysByDay.get(day);
  if (key === undefined) {
    key = `${day.year}-${pad(day.month)}-${pad(day.day)}`;
    keysByDay.set(day, key);
  }
  return key;
}

/**
 * The hours of `day` in minutes after local midnight, as an override sets them: null when
 * closed all day, undefined when no override names the day (its weekday's hours apply).
 */
export function overrideHours(
  overrides: OverridesByDate | undefined,
  day: DateTime,
): { open: number; close: number } | null | undefined {
  const entry = overrides?.get(dateKeyOf(day));
  if (!entry) return undefined;
  if (entry.closed || !entry.openTime || !entry.closeTime) return null;
  return { open: minutesOf(entry.openTime), close: minutesOf(entry.closeTime) };
}
