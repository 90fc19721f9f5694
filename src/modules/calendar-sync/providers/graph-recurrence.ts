import { DateTime } from 'luxon';

/**
 * RFC 5545 rules to Microsoft Graph's patternedRecurrence, for pushing a local recurring
 * event to `calendar_provider_b`. Graph expresses one pattern and one range; rules it cannot
 * express (several RRULEs, RDATE, EXDATE, BYHOUR, BYSETPOS other than one ordinal...) answer
 * null and the caller does not push the series.
 */

const WEEKDAYS: Record<string, string> = {
  MO: 'monday',
  TU: 'tuesday',
  WE: 'wednesday',
  TH: 'thursday',
  FR: 'friday',
  SA: 'saturday',
  SU: 'sunday',
};
const INDEX: Record<string, string> = {
  '1': 'first',
  '2': 'second',
  '3': 'third',
  '4': 'fourth',
  '-1': 'last',
};
const SUPPORTED_PARTS = new Set([
  'FREQ',
  'INTERVAL',
  'BYDAY',
  'BYMONTHDAY',
  'BYMONTH',
  'COUNT',
  'UNTIL',
  'WKST',
  'BYSETPOS',
]);

export type PatternedRecurrence = {
  pattern: Record<string, unknown>;
  range: Record<string, unknown>;
};

/** The parts of the one RRULE in `lines`, or null when there is more, or a part Graph cannot express. */
function ruleParts(lines: readonly string[]): Map<string, string> | null {
  const rules = lines.filter((line) => /^RRULE[:;]/i.test(line));
  if (rules.length !== 1 || lines.length !== 1) return null;
  const value = rules[0]!.slice(rules[0]!.indexOf(':') + 1).toUpperCase();
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const [key, partValue] = part.split('=');
    if (!key || !partValue || !SUPPORTED_PARTS.has(key)) return null;
    parts.set(key, partValue);
  }
  return parts;
}

/** Graph's names of plain BYDAY weekdays, or null when one is not plain (an ordinal). */
function plainDays(days: string[]): string[] | null {
  const names = days.map((day) => WEEKDAYS[day]);
  return names.every(Boolean) ? (names as string[]) : null;
}

/** One ordinal weekday (2TU, -1FR), or weekdays with one BYSETPOS: Graph's "relative" patterns. */
function relativeDays(
  byDay: string[],
  setPos: string | undefined,
): { daysOfWeek: string[]; index: string } | null {
  if (setPos !== undefined) {
    const days = plainDays(byDay);
    const index = INDEX[setPos];
    return days && index ? { daysOfWeek: days, index } : null;
  }
  if (byDay.length !== 1) return null;
  const match = /^([+-]?\d)(MO|TU|WE|TH|FR|SA|SU)$/.exec(byDay[0]!);
  const index = match ? INDEX[match[1]!.replace('+', '')] : undefined;
  return match && index ? { daysOfWeek: [WEEKDAYS[match[2]!]!], index } : null;
}

/** Graph's pattern for the rule's FREQ and BY* parts, or null when Graph has none. */
function patternOf(parts: Map<string, string>, start: DateTime): Record<string, unknown> | null {
  const interval = Number(parts.get('INTERVAL') ?? '1');
  const byDay = parts.get('BYDAY')?.split(',');
  const setPos = parts.get('BYSETPOS');
  const monthDay = parts.get('BYMONTHDAY');
  const month = parts.get('BYMONTH');
  if (monthDay?.includes(',') || month?.includes(',') || (monthDay && Number(monthDay) < 1)) return null;

  switch (parts.get('FREQ')) {
    case 'DAILY':
      if (byDay || monthDay || month || setPos) return null;
      return { type: 'daily', interval };
    case 'WEEKLY': {
      if (monthDay || month || setPos) return null;
      const days = byDay ? plainDays(byDay) : [start.toFormat('cccc').toLowerCase()];
      if (!days) return null;
      const weekStart = WEEKDAYS[parts.get('WKST') ?? 'MO'] ?? 'monday';
      return { type: 'weekly', interval, daysOfWeek: days, firstDayOfWeek: weekStart };
    }
    case 'MONTHLY': {
      if (month) return null;
      if (!byDay) return { type: 'absoluteMonthly', interval, dayOfMonth: Number(monthDay ?? start.day) };
      const found = relativeDays(byDay, setPos);
      if (!found || monthDay) return null;
      return { type: 'relativeMonthly', interval, ...found };
    }
    case 'YEARLY': {
      const monthNumber = Number(month ?? start.month);
      if (!byDay)
        return {
          type: 'absoluteYearly',
          interval,
          month: monthNumber,
          dayOfMonth: Number(monthDay ?? start.day),
        };
      const found = relativeDays(byDay, setPos);
      if (!found || monthDay) return null;
      return { type: 'relativeYearly', interval, month: monthNumber, ...found };
    }
    default:
      return null;
  }
}

/** Graph's range for the rule's COUNT or UNTIL (none: no end), or null when UNTIL does not parse. */
function rangeOf(parts: Map<string, string>, start: DateTime): Record<string, unknown> | null {
  const startDate = start.toISODate();
  const zone = start.zoneName ?? 'UTC';
  const count = parts.get('COUNT');
  const until = parts.get('UNTIL');
  if (count)
    return { type: 'numbered', startDate, numberOfOccurrences: Number(count), recurrenceTimeZone: zone };
  if (!until) return { type: 'noEnd', startDate, recurrenceTimeZone: zone };
  const untilDate = /^\d{8}$/.test(until)
    ? DateTime.fromFormat(until, 'yyyyMMdd', { zone })
    : DateTime.fromFormat(until.replace(/Z$/, ''), "yyyyMMdd'T'HHmmss", {
        zone: until.endsWith('Z') ? 'utc' : zone,
      }).setZone(zone);
  if (!untilDate.isValid) return null;
  return { type: 'endDate', startDate, endDate: untilDate.toISODate(), recurrenceTimeZone: zone };
}

/** `start` is the first occurrence in the event's zone. */
export function toPatternedRecurrence(lines: readonly string[], start: DateTime): PatternedRecurrence | null {
  const parts = ruleParts(lines);
  if (!parts) return null;
  const pattern = patternOf(parts, start);
  if (!pattern) return null;
  const range = rangeOf(parts, start);
  return range && { pattern, range };
}

/** Common Windows zone names Graph may answer with, to IANA. Unknown names answer undefined. */
const WINDOWS_ZONES: Record<string, string> = {
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'Romance Standard Time': 'Europe/Paris',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'FLE Standard Time': 'Europe/Kiev',
  'GTB Standard Time': 'Europe/Bucharest',
  'Russian Standard Time': 'Europe/Moscow',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'US Mountain Standard Time': 'America/Phoenix',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Alaskan Standard Time': 'America/Anchorage',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Atlantic Standard Time': 'America/Halifax',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'India Standard Time': 'Asia/Kolkata',
  'China Standard Time': 'Asia/Shanghai',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Korea Standard Time': 'Asia/Seoul',
  'Singapore Standard Time': 'Asia/Singapore',
  'Arabian Standard Time': 'Asia/Dubai',
  'Israel Standard Time': 'Asia/Jerusalem',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
};

/** An IANA zone for a zone name Graph answered (IANA already, or a known Windows name). */
export function ianaZone(name: string | null | undefined): string | undefined {
  if (!name) return undefined;
  if (DateTime.local().setZone(name).isValid) return name;
  return WINDOWS_ZONES[name];
}
