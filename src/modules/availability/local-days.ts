import { DateTime } from 'luxon';
import type { Interval } from './engine.js';

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
export function localDays(range: Interval, zone: string): DateTime[] {
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
export function atLocalMinutes(day: DateTime, minutes: number): number {
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

export const weekday = (day: DateTime) => day.weekday % 7; // luxon: Monday 1 .. Sunday 7
