// Time-zone logic of the pages, kept free of React and the DOM so test/frontend can check it:
// which start times an availability answer offers, on which day of the visitor's zone they
// fall, and how they read there.

/** A free interval of a continuous-mode answer. */
export interface AvailabilityWindow {
  start: string;
  end: string;
  freeLanes: number;
}
/** A fixed slot of a shifts-mode answer. */
export interface AvailabilitySlot {
  start: string;
  end: string;
  available: boolean;
}
interface Offer {
  windows?: AvailabilityWindow[] | undefined;
  slots?: AvailabilitySlot[] | undefined;
}
/** What GET .../availability answers, for a resource or for a type (its pool, or each resource). */
export interface AvailabilityAnswer extends Offer {
  resourceId?: number | undefined;
  pool?: Offer | undefined;
  resources?: (Offer & { resourceId: number })[] | undefined;
}

/** One time a customer can pick: on `resourceId`, or from the type's pool when null. */
export interface BookableTime {
  start: string;
  end: string;
  resourceId: number | null;
}

const MINUTE = 60_000;
/** Starts inside a free window are offered on a grid of at most this many minutes. */
export const MAX_STEP_MINUTES = 30;
/** Starts sit on this grid at least, so times read 09:05, never 09:03. */
const ALIGN_MINUTES = 5;

/**
 * The starts a free window offers for a booking of `durationMinutes`: on the step's own grid
 * of the hour where the step divides it (a window opening at 10:38 offers 11:00, 11:30...),
 * else on five minutes.
 */
function startsIn(window: AvailabilityWindow, durationMinutes: number): [number, number][] {
  const stepMinutes = Math.min(durationMinutes, MAX_STEP_MINUTES);
  const step = stepMinutes * MINUTE;
  const length = durationMinutes * MINUTE;
  const end = Date.parse(window.end);
  const align =
    (60 % stepMinutes === 0 && stepMinutes % ALIGN_MINUTES === 0 ? stepMinutes : ALIGN_MINUTES) * MINUTE;
  const out: [number, number][] = [];
  for (let t = Math.ceil(Date.parse(window.start) / align) * align; t + length <= end; t += step) {
    out.push([t, t + length]);
  }
  return out;
}

/**
 * Free windows that touch are one stretch of free time: an answer splits them where the
 * number of free lanes changes, and a booking may run across that point.
 */
export function mergeFree(windows: AvailabilityWindow[]): AvailabilityWindow[] {
  const free = windows
    .filter((w) => w.freeLanes > 0)
    .sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const merged: AvailabilityWindow[] = [];
  for (const w of free) {
    const last = merged.at(-1);
    if (last && Date.parse(w.start) <= Date.parse(last.end)) {
      if (Date.parse(w.end) > Date.parse(last.end)) last.end = w.end;
      last.freeLanes = Math.min(last.freeLanes, w.freeLanes);
    } else merged.push({ ...w });
  }
  return merged;
}

function timesOf(offer: Offer, durationMinutes: number, resourceId: number | null): BookableTime[] {
  const fromWindows = mergeFree(offer.windows ?? []).flatMap((w) => startsIn(w, durationMinutes));
  const fromSlots = (offer.slots ?? [])
    .filter((s) => s.available)
    .map((s): [number, number] => [Date.parse(s.start), Date.parse(s.end)]);
  return [...fromWindows, ...fromSlots].map(([start, end]) => ({
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    resourceId,
  }));
}

/**
 * Every time the answer offers from `now` on, earliest first, one per start: a time free on
 * several resources is offered once, on the first of them (the pool comes first).
 */
export function bookableTimes(
  answer: AvailabilityAnswer,
  durationMinutes: number,
  now: number,
): BookableTime[] {
  const all = [
    ...timesOf(answer, durationMinutes, answer.resourceId ?? null),
    ...(answer.pool ? timesOf(answer.pool, durationMinutes, null) : []),
    ...(answer.resources ?? []).flatMap((r) => timesOf(r, durationMinutes, r.resourceId)),
  ];
  const byStart = new Map<string, BookableTime>();
  for (const time of all) {
    if (Date.parse(time.start) < now || byStart.has(time.start)) continue;
    byStart.set(time.start, time);
  }
  return [...byStart.values()].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string | undefined, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${JSON.stringify(options)}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, found);
  }
  return found;
}

/** The calendar day (YYYY-MM-DD) an instant falls on in `zone`. */
export function dayKey(instant: string | number, zone: string): string {
  const parts = formatter('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date(instant))
    .reduce<Record<string, string>>((acc, p) => Object.assign(acc, { [p.type]: p.value }), {});
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The times grouped by their day in `zone`, each day's times in order. */
export function timesByDay(times: BookableTime[], zone: string): Map<string, BookableTime[]> {
  const days = new Map<string, BookableTime[]>();
  for (const time of times) {
    const key = dayKey(time.start, zone);
    const list = days.get(key);
    if (list) list.push(time);
    else days.set(key, [time]);
  }
  return days;
}

/** "09:30" (or "9:30 AM", as the locale writes it) in `zone`. */
export function formatTime(instant: string, zone: string, locale?: string): string {
  return formatter(locale, { timeZone: zone, hour: '2-digit', minute: '2-digit' }).format(new Date(instant));
}

/** "Monday 1 March 2027" in the locale's words. A day key is read as that calendar day. */
export function formatDay(day: string, locale?: string): string {
  return formatter(locale, {
    timeZone: 'UTC',
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  }).format(new Date(`${day}T12:00:00Z`));
}

/** "Monday 1 March 2027, 09:30" in `zone`. */
export function formatDateTime(instant: string, zone: string, locale?: string): string {
  return `${formatDay(dayKey(instant, zone), locale)}, ${formatTime(instant, zone, locale)}`;
}

/** "March 2027". */
export function formatMonth(month: Month, locale?: string): string {
  return formatter(locale, { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(
    new Date(Date.UTC(month.year, month.month, 15)),
  );
}

/** A calendar month; `month` counts from 0 as Date does. */
export interface Month {
  year: number;
  month: number;
}

export function monthOf(day: string): Month {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return { year, month: month - 1 };
}

export function addMonths(m: Month, n: number): Month {
  const d = new Date(Date.UTC(m.year, m.month + n, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() };
}

const keyOfUtc = (d: Date) => d.toISOString().slice(0, 10);

/** The month's weeks, Monday first; days outside the month are null. */
export function monthGrid(m: Month): (string | null)[][] {
  const first = new Date(Date.UTC(m.year, m.month, 1));
  const lead = (first.getUTCDay() + 6) % 7;
  const days = new Date(Date.UTC(m.year, m.month + 1, 0)).getUTCDate();
  const cells: (string | null)[] = Array.from({ length: lead }, () => null);
  for (let d = 1; d <= days; d++) cells.push(keyOfUtc(new Date(Date.UTC(m.year, m.month, d))));
  while (cells.length % 7) cells.push(null);
  const weeks: (string | null)[][] = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}

/** Zones lie 14 hours either side of UTC at most: this margin covers a month's days in any zone. */
const ZONE_MARGIN = 14 * 60 * MINUTE;

/**
 * The range to ask availability for so that every day of `m` in any zone is covered, from
 * `now` on; null when the month is over.
 */
export function monthRange(m: Month, now: number): { from: string; to: string } | null {
  const from = Math.max(now, Date.UTC(m.year, m.month, 1) - ZONE_MARGIN);
  const to = Date.UTC(m.year, m.month + 1, 1) + ZONE_MARGIN;
  if (to <= from) return null;
  // Whole minutes: equal ranges within a minute share one cached answer.
  const start = Math.floor(from / MINUTE) * MINUTE;
  return { from: new Date(start).toISOString(), to: new Date(to).toISOString() };
}

/** The visitor's own zone, as the browser knows it. */
export function visitorZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Every zone the browser knows, with the ones given first if it does not list them. */
export function zoneChoices(...always: string[]): string[] {
  const known: string[] =
    typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC'];
  const set = new Set(known);
  // The visitor's and the organisation's zone may be one and the same, and missing from the list (UTC).
  return [...new Set(always)].filter((z) => !set.has(z)).concat(known);
}

/** "in 9 minutes" style remaining time: whole minutes, at least 0. */
export function minutesLeft(until: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(until) - now) / MINUTE));
}

/** The length of a reservation in minutes. */
export function durationMinutes(start: string, end: string): number {
  return Math.round((Date.parse(end) - Date.parse(start)) / MINUTE);
}

const HALF_DAY = 12 * 60 * 60_000;

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
  const candidates = [offsetAt(guess - HALF_DAY, zone), offsetAt(guess + HALF_DAY, zone)]
    .map((offset) => guess - offset)
    .filter((t) => localOf(new Date(t).toISOString(), zone) === local)
    .sort((a, b) => a - b);
  const at = candidates[0] ?? guess - offsetAt(guess - HALF_DAY, zone);
  return new Date(at).toISOString();
}

/** The wall-clock time (`YYYY-MM-DDTHH:mm`) of `instant` in `zone`, for a datetime-local input. */
export function localOf(instant: string, zone: string): string {
  const ms = Date.parse(instant);
  return new Date(ms + offsetAt(ms, zone)).toISOString().slice(0, 16);
}
