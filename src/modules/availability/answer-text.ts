import type { Interval, Lane, Rules, Slot } from './engine.js';
import type { ResourceAvailability } from './schemas.js';
import { continuousWindows, shiftAvailability } from './windows.js';

/** The engine's windows and slots as an answer writes them: instants as ISO text. */

export const iso = (ms: number) => new Date(ms).toISOString();

const DAY_MS = 86_400_000;
/** The last year ISO text writes with four digits: beyond it, and before year 0, through Date. */
const FOUR_DIGIT_YEARS_END = Date.UTC(10_000, 0, 1);
const twoDigits = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
/** `YYYY-MM-DDT` of the last day written: an answer's instants come a few to a day. */
let lastDay = Number.NaN;
let lastDayText = '';
/**
 * `new Date(ms).toISOString()`, for the thousands of instants of an answer: the date part
 * is written once a day, the time from tables (a Date and its formatting per instant were
 * a twentieth of an answer's cost).
 */
function isoText(ms: number): string {
  if (!(ms >= 0 && ms < FOUR_DIGIT_YEARS_END)) return iso(ms);
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDay = day;
    lastDayText = iso(day * DAY_MS).slice(0, 11);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${lastDayText}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[rest - seconds * 1000]}Z`;
}
type WindowOut = NonNullable<ResourceAvailability['windows']>[number];
/** The windows of `lanes` as the answer shows them. */
function windowsOf(lanes: Lane[], zone: string, range: Interval, rules: Rules): WindowOut[] {
  const windows: WindowOut[] = [];
  let lastEnd = Number.NaN;
  let lastEndText = '';
  continuousWindows(lanes, zone, range, rules, (start, end, freeLanes) => {
    // A window mostly starts where the last ended: its text is that one.
    const startText = start === lastEnd ? lastEndText : isoText(start);
    lastEnd = end;
    lastEndText = isoText(end);
    windows.push({ start: startText, end: lastEndText, freeLanes, totalLanes: lanes.length });
  });
  return windows;
}
const slotsOut = (slots: Slot[]) =>
  slots.map((s) => ({
    start: isoText(s.start),
    end: isoText(s.end),
    available: s.available,
    freeLanes: s.freeLanes,
    totalLanes: s.totalLanes,
  }));

/** What `lanes` offer in `range` as the answer shows it: windows (continuous mode) or slots (shifts). */
export function windowsOrSlots(
  lanes: Lane[],
  mode: 'continuous' | 'shifts',
  zone: string,
  range: Interval,
  rules: Rules,
) {
  return mode === 'shifts'
    ? { slots: slotsOut(shiftAvailability(lanes, zone, range, rules.bookable)) }
    : { windows: windowsOf(lanes, zone, range, rules) };
}
