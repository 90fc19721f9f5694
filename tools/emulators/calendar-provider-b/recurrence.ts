// Microsoft Graph `patternedRecurrence`: validation, normalisation and
// expansion into occurrence dates (what a calendarView shows).
import { dateOfDay, dayNumber, daysInMonth, formatDate, parseDate } from '../calendar-common/time.js';

export const WEEKDAYS = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const PATTERN_TYPES = [
  'daily',
  'weekly',
  'absoluteMonthly',
  'relativeMonthly',
  'absoluteYearly',
  'relativeYearly',
] as const;
const RANGE_TYPES = ['endDate', 'noEnd', 'numbered'] as const;
const INDEXES = ['first', 'second', 'third', 'fourth', 'last'] as const;

export interface Recurrence {
  pattern: {
    type: (typeof PATTERN_TYPES)[number];
    interval: number;
    month: number;
    dayOfMonth: number;
    daysOfWeek: Weekday[];
    firstDayOfWeek: Weekday;
    index: (typeof INDEXES)[number];
  };
  range: {
    type: (typeof RANGE_TYPES)[number];
    startDate: string;
    endDate: string;
    recurrenceTimeZone: string;
    numberOfOccurrences: number;
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Validates and fills Graph's defaults; answers an error message when invalid. */
export function normaliseRecurrence(input: unknown, defaultTimeZone: string): Recurrence | string {
  if (!isObject(input) || !isObject(input.pattern) || !isObject(input.range))
    return 'recurrence needs a pattern and a range.';
  const p = input.pattern;
  const r = input.range;
  const type = p.type as Recurrence['pattern']['type'];
  if (!PATTERN_TYPES.includes(type)) return `Unsupported recurrence pattern type: ${String(p.type)}`;
  const interval = p.interval === undefined ? 1 : p.interval;
  if (!Number.isInteger(interval) || (interval as number) < 1 || (interval as number) > 999)
    return 'recurrence pattern interval must be a positive integer.';
  const daysOfWeek = (p.daysOfWeek ?? []) as unknown;
  if (!Array.isArray(daysOfWeek) || daysOfWeek.some((day) => !WEEKDAYS.includes(day as Weekday)))
    return 'recurrence pattern daysOfWeek is not valid.';
  const firstDayOfWeek = (p.firstDayOfWeek ?? 'sunday') as Weekday;
  if (!WEEKDAYS.includes(firstDayOfWeek)) return 'recurrence pattern firstDayOfWeek is not valid.';
  const index = (p.index ?? 'first') as Recurrence['pattern']['index'];
  if (!INDEXES.includes(index)) return 'recurrence pattern index is not valid.';
  const month = p.month === undefined ? 0 : p.month;
  const dayOfMonth = p.dayOfMonth === undefined ? 0 : p.dayOfMonth;
  if (!Number.isInteger(month) || (month as number) < 0 || (month as number) > 12)
    return 'recurrence pattern month is not valid.';
  if (!Number.isInteger(dayOfMonth) || (dayOfMonth as number) < 0 || (dayOfMonth as number) > 31)
    return 'recurrence pattern dayOfMonth is not valid.';
  if ((type === 'weekly' || type.startsWith('relative')) && daysOfWeek.length === 0)
    return `A ${type} recurrence needs daysOfWeek.`;
  if (type.startsWith('absolute') && dayOfMonth === 0) return `An ${type} recurrence needs dayOfMonth.`;
  if (type.endsWith('Yearly') && month === 0) return `A ${type} recurrence needs month.`;
  const rangeType = r.type as Recurrence['range']['type'];
  if (!RANGE_TYPES.includes(rangeType)) return `Unsupported recurrence range type: ${String(r.type)}`;
  const start = parseDate(r.startDate);
  if (!start) return 'recurrence range startDate is required (YYYY-MM-DD).';
  let endDate = '0001-01-01';
  if (rangeType === 'endDate') {
    const end = parseDate(r.endDate);
    if (!end) return 'recurrence range endDate is required (YYYY-MM-DD).';
    if (dayNumber(end) < dayNumber(start)) return 'recurrence range endDate is before startDate.';
    endDate = formatDate(end);
  }
  let numberOfOccurrences = 0;
  if (rangeType === 'numbered') {
    const count = r.numberOfOccurrences;
    if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 999)
      return 'recurrence range numberOfOccurrences must be between 1 and 999.';
    numberOfOccurrences = count as number;
  }
  const recurrenceTimeZone =
    typeof r.recurrenceTimeZone === 'string' && r.recurrenceTimeZone ? r.recurrenceTimeZone : defaultTimeZone;
  return {
    pattern: {
      type,
      interval: interval as number,
      month: month as number,
      dayOfMonth: dayOfMonth as number,
      daysOfWeek: [...new Set(daysOfWeek as Weekday[])],
      firstDayOfWeek,
      index,
    },
    range: {
      type: rangeType,
      startDate: formatDate(start),
      endDate,
      recurrenceTimeZone,
      numberOfOccurrences,
    },
  };
}

function nthWeekday(
  year: number,
  month: number,
  days: Weekday[],
  index: Recurrence['pattern']['index'],
): number | null {
  const wanted = new Set(days.map((day) => WEEKDAYS.indexOf(day)));
  const first = dayNumber({ year, month, day: 1 });
  const last = first + daysInMonth(year, month) - 1;
  const matches: number[] = [];
  for (let d = first; d <= last; d += 1) if (wanted.has(dateOfDay(d).weekday)) matches.push(d);
  if (matches.length === 0) return null;
  if (index === 'last') return matches[matches.length - 1]!;
  return matches[INDEXES.indexOf(index)] ?? null;
}

/**
 * Occurrence day numbers (days since the epoch, local to the series) in
 * order, up to `lastDay` inclusive. Respects the range's end and count.
 */
export function* occurrenceDays(recurrence: Recurrence, lastDay: number): Generator<number> {
  const { pattern, range } = recurrence;
  const startDay = dayNumber(parseDate(range.startDate)!);
  const endDay = range.type === 'endDate' ? dayNumber(parseDate(range.endDate)!) : Number.POSITIVE_INFINITY;
  const limit = Math.min(lastDay, endDay);
  const maxCount = range.type === 'numbered' ? range.numberOfOccurrences : Number.POSITIVE_INFINITY;
  let count = 0;
  let guard = 0;
  const emit = function* (day: number): Generator<number, boolean> {
    if (day < startDay) return true;
    if (day > limit || count >= maxCount) return false;
    count += 1;
    yield day;
    return count < maxCount;
  };
  const start = dateOfDay(startDay);
  switch (pattern.type) {
    case 'daily': {
      for (let day = startDay; guard < 200_000; day += pattern.interval, guard += 1)
        if (!(yield* emit(day))) return;
      return;
    }
    case 'weekly': {
      const firstDow = WEEKDAYS.indexOf(pattern.firstDayOfWeek);
      const weekStart = startDay - ((start.weekday - firstDow + 7) % 7);
      const offsets = pattern.daysOfWeek
        .map((day) => (WEEKDAYS.indexOf(day) - firstDow + 7) % 7)
        .sort((a, b) => a - b);
      for (let week = weekStart; guard < 100_000; week += 7 * pattern.interval, guard += 1) {
        if (week > limit) return;
        for (const offset of offsets) if (!(yield* emit(week + offset))) return;
      }
      return;
    }
    case 'absoluteMonthly':
    case 'relativeMonthly': {
      for (let k = 0; guard < 50_000; k += pattern.interval, guard += 1) {
        const monthIndex = start.month - 1 + k;
        const year = start.year + Math.floor(monthIndex / 12);
        const month = (monthIndex % 12) + 1;
        if (dayNumber({ year, month, day: 1 }) > limit) return;
        const day =
          pattern.type === 'absoluteMonthly'
            ? dayNumber({ year, month, day: Math.min(pattern.dayOfMonth, daysInMonth(year, month)) })
            : nthWeekday(year, month, pattern.daysOfWeek, pattern.index);
        if (day !== null && !(yield* emit(day))) return;
      }
      return;
    }
    case 'absoluteYearly':
    case 'relativeYearly': {
      for (let year = start.year; guard < 10_000; year += pattern.interval, guard += 1) {
        const month = pattern.month;
        if (dayNumber({ year, month, day: 1 }) > limit) return;
        const day =
          pattern.type === 'absoluteYearly'
            ? dayNumber({ year, month, day: Math.min(pattern.dayOfMonth, daysInMonth(year, month)) })
            : nthWeekday(year, month, pattern.daysOfWeek, pattern.index);
        if (day !== null && !(yield* emit(day))) return;
      }
      return;
    }
  }
}
