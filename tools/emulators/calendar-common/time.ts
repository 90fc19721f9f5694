// Wall-clock <-> instant conversions in IANA time zones with nothing but Intl,
// shared by the calendar provider emulators.

export interface LocalDateTime {
  year: number;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const invalidZones = new Set<string>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (formatters.size < 2000) formatters.set(timeZone, format);
  }
  return format;
}

/** Whether Intl knows the zone (IANA names, `UTC`). */
export function isValidTimeZone(timeZone: string): boolean {
  if (!timeZone || timeZone.length > 100 || invalidZones.has(timeZone)) return false;
  if (formatters.has(timeZone)) return true;
  try {
    formatter(timeZone);
    return true;
  } catch {
    if (invalidZones.size < 2000) invalidZones.add(timeZone);
    return false;
  }
}

function partsOf(ms: number, timeZone: string): LocalDateTime {
  const parts = formatter(timeZone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const hour = get('hour');
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: hour === 24 ? 0 : hour,
    minute: get('minute'),
    second: get('second'),
    millisecond: ((ms % 1000) + 1000) % 1000,
  };
}

// Offsets only change on quarter hours (UTC) in every zone since 1970, so one
// Intl call per zone and quarter hour is enough; Intl is the slow part here.
const QUARTER = 900_000;
const offsets = new Map<string, number>();

function offsetAt(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const bucket = Math.floor(ms / QUARTER) * QUARTER;
  const key = `${timeZone}|${bucket}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const local = partsOf(bucket, timeZone);
    offset =
      Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - bucket;
    if (offsets.size > 200_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** The wall clock of an instant in a zone. */
export function utcToLocal(ms: number, timeZone: string): LocalDateTime {
  const shifted = new Date(ms + offsetAt(ms, timeZone));
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
    second: shifted.getUTCSeconds(),
    millisecond: shifted.getUTCMilliseconds(),
  };
}

/** The instant of a wall-clock time in a zone (the earlier one in a DST overlap, shifted forward in a gap). */
export function localToUtc(local: LocalDateTime, timeZone: string): number {
  const naive = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
    local.millisecond,
  );
  const first = offsetAt(naive, timeZone);
  let candidate = naive - first;
  const second = offsetAt(candidate, timeZone);
  if (second !== first) {
    const alternative = naive - second;
    candidate = offsetAt(alternative, timeZone) === second ? alternative : Math.max(candidate, alternative);
  }
  return candidate;
}

const LOCAL_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface ParsedDateTime {
  local: LocalDateTime;
  /** Offset in minutes when the text carried one (`Z` is 0); null for a floating time. */
  offsetMinutes: number | null;
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** Parses `YYYY-MM-DDTHH:mm[:ss[.fffffff]][Z|±hh:mm]`. */
export function parseDateTime(text: unknown): ParsedDateTime | null {
  if (typeof text !== 'string') return null;
  const match = LOCAL_PATTERN.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const local: LocalDateTime = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
    millisecond: fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0,
  };
  if (!validDate(local.year, local.month, local.day)) return null;
  if (local.hour > 23 || local.minute > 59 || local.second > 59) return null;
  let offsetMinutes: number | null = null;
  if (zone) {
    if (zone === 'Z' || zone === 'z') offsetMinutes = 0;
    else {
      const sign = zone.startsWith('-') ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      const hours = Number(digits.slice(0, 2));
      const minutes = Number(digits.slice(2, 4));
      if (hours > 23 || minutes > 59) return null;
      offsetMinutes = sign * (hours * 60 + minutes);
    }
  }
  return { local, offsetMinutes };
}

/** Parses `YYYY-MM-DD`. */
export function parseDate(text: unknown): { year: number; month: number; day: number } | null {
  if (typeof text !== 'string') return null;
  const match = DATE_PATTERN.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return validDate(year, month, day) ? { year, month, day } : null;
}

/** The instant of a parsed date-time: its own offset, else the zone. */
export function instantOf(parsed: ParsedDateTime, timeZone: string): number {
  if (parsed.offsetMinutes !== null) {
    const { local } = parsed;
    return (
      Date.UTC(
        local.year,
        local.month - 1,
        local.day,
        local.hour,
        local.minute,
        local.second,
        local.millisecond,
      ) -
      parsed.offsetMinutes * 60_000
    );
  }
  return localToUtc(parsed.local, timeZone);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `YYYY-MM-DD` of a local date. */
export function formatDate(local: { year: number; month: number; day: number }): string {
  return `${pad(local.year, 4)}-${pad(local.month)}-${pad(local.day)}`;
}

/** `YYYY-MM-DDTHH:mm:ss` plus `.fffffff` when `fractionDigits` is 7 (Graph) or none when 0. */
export function formatLocal(local: LocalDateTime, fractionDigits = 0): string {
  const base = `${formatDate(local)}T${pad(local.hour)}:${pad(local.minute)}:${pad(local.second)}`;
  if (fractionDigits === 0) return base;
  return `${base}.${pad(local.millisecond, 3).padEnd(fractionDigits, '0')}`;
}

/** RFC 3339 with milliseconds in UTC, as Google writes `updated`. */
export const isoMillis = (ms: number) => new Date(ms).toISOString();

/** RFC 3339 with seven fractional digits in UTC, as Graph writes timestamps. */
export function isoSevenDigits(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}0000Z`;
}

/** Days since 1970-01-01 of a calendar date (proleptic Gregorian). */
export function dayNumber(date: { year: number; month: number; day: number }): number {
  return Math.floor(Date.UTC(date.year, date.month - 1, date.day) / 86_400_000);
}

/** The calendar date of a day number. */
export function dateOfDay(days: number): { year: number; month: number; day: number; weekday: number } {
  const probe = new Date(days * 86_400_000);
  return {
    year: probe.getUTCFullYear(),
    month: probe.getUTCMonth() + 1,
    day: probe.getUTCDate(),
    weekday: probe.getUTCDay(),
  };
}

/** Days in a month (month 1..12). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
