import { DateTime } from 'luxon';
import rrulePkg from 'rrule';

const { RRule } = rrulePkg;
type Rule = InstanceType<typeof RRule>;

/**
 * Recurrence of an event: RFC 5545 lines (`RRULE:`, `EXDATE:`, `RDATE:`), as
 * calendar providers exchange them, expanded in the event's own time zone.
 *
 * Expansion works in "floating" local time: the event's start is turned into its
 * wall-clock time in the event's zone, written into a Date's UTC fields, and the
 * rrule library iterates on those (it does all of its arithmetic in UTC fields).
 * Each occurrence is then turned back into a real instant in the zone with
 * luxon. So a weekly 09:00 Europe/Berlin meeting stays at 09:00 local across
 * daylight-saving changes, and an all-day event always starts at local midnight.
 */

export interface Series {
  /** First occurrence (DTSTART), ISO-8601 UTC. */
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
}

export interface Occurrence {
  start: string;
  end: string;
}

/** A recurrence line that cannot be used; `index` is its position in the array. */
export class RecurrenceError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

/** More occurrences in the asked range than the caller allows. */
export class OccurrenceLimitError extends Error {}

export interface CompiledRecurrence {
  rules: Rule[];
  /** Extra occurrences (RDATE), floating local milliseconds. */
  rdates: number[];
  /** Excluded occurrence starts (EXDATE with a time), floating local seconds. */
  exdates: Set<number>;
  /** Excluded local dates (EXDATE;VALUE=DATE), `yyyy-MM-dd`. */
  exdays: Set<string>;
  /** True when every rule ends (COUNT or UNTIL), so the series has a last occurrence. */
  finite: boolean;
}

const FREQUENCIES: Record<string, number> = {
  YEARLY: RRule.YEARLY,
  MONTHLY: RRule.MONTHLY,
  WEEKLY: RRule.WEEKLY,
  DAILY: RRule.DAILY,
};
const TOO_FREQUENT = new Set(['HOURLY', 'MINUTELY', 'SECONDLY']);
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;
const DAY_MS = 86_400_000;
/** Series longer than this many occurrences are treated as open-ended for range queries. */
const FINITE_SCAN_LIMIT = 5000;
/** ...or whose end is more than this many periods (FREQ × INTERVAL steps) away. */
const FINITE_SCAN_PERIODS = 10_000;
/** A rule must occur within this many years after DTSTART (DTSTART itself counts). */
const FIRST_OCCURRENCE_YEARS = 8;
/** Fewest days in one period of each frequency, to bound a scan of a time span. */
const MIN_PERIOD_DAYS: Record<number, number> = {
  [RRule.YEARLY]: 365,
  [RRule.MONTHLY]: 28,
  [RRule.WEEKLY]: 7,
  [RRule.DAILY]: 1,
};
/** An ordinal BYDAY (1MO, -1FR) counts weeks of a month here, of a year otherwise. */
const MONTH_ORDINAL_MAX = 5;
const YEAR_ORDINAL_MAX = 53;

type NumberList = { min: number; max: number; signed: boolean };
const NUMBER_LISTS: Record<string, NumberList> = {
  BYSECOND: { min: 0, max: 60, signed: false },
  BYMINUTE: { min: 0, max: 59, signed: false },
  BYHOUR: { min: 0, max: 23, signed: false },
  BYMONTHDAY: { min: 1, max: 31, signed: true },
  BYYEARDAY: { min: 1, max: 366, signed: true },
  BYWEEKNO: { min: 1, max: 53, signed: true },
  BYMONTH: { min: 1, max: 12, signed: false },
  BYSETPOS: { min: 1, max: 366, signed: true },
};

function isNumberList(value: string, { min, max, signed }: NumberList): boolean {
  return value.split(',').every((part) => {
    if (!(signed ? /^[+-]?\d{1,3}$/ : /^\+?\d{1,3}$/).test(part)) return false;
    const n = Math.abs(Number(part));
    return n >= min && n <= max;
  });
}

/** Wall-clock time of `dt` written into UTC fields. */
function floating(dt: DateTime): number {
  return Date.UTC(dt.year, dt.month - 1, dt.day, dt.hour, dt.minute, dt.second, dt.millisecond);
}

/** The real instant of a floating local time in `zone` (a time skipped by DST moves forward). */
function fromFloating(ms: number, zone: string): DateTime {
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

const localDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// EXDATE values have whole seconds; a start with milliseconds still matches its second.
const toSecond = (ms: number) => Math.floor(ms / 1000);

interface ContentLine {
  name: string;
  params: Map<string, string>;
  value: string;
}

/**
 * The parameters EXDATE and RDATE take. Any other is refused, not ignored: a line is stored
 * and written to feeds as given. Calendar sync marks the exceptions it writes with
 * `X-SYNC-EXCEPTION=TRUE` (on EXDATE only).
 */
const DATE_PARAMS = new Set(['VALUE', 'TZID']);
const SYNC_MARK = { name: 'X-SYNC-EXCEPTION', value: 'TRUE' };

function checkParams(name: string, params: Map<string, string>, index: number) {
  if (name === 'RRULE' && params.size > 0) throw new RecurrenceError('RRULE takes no parameters', index);
  for (const [key, value] of params) {
    if (DATE_PARAMS.has(key)) continue;
    if (name === 'EXDATE' && key === SYNC_MARK.name && value.toUpperCase() === SYNC_MARK.value) continue;
    throw new RecurrenceError(`parameter ${key} is not supported (${name} takes VALUE and TZID)`, index);
  }
}

function parseContentLine(line: string, index: number): ContentLine {
  // A line break would start a content line of its own wherever the line is written (feeds).
  const lineBreak = /[\r\n]/.exec(line)?.[0];
  if (lineBreak)
    throw new RecurrenceError(
      `must be one line: it contains a ${lineBreak === '\r' ? 'carriage return' : 'line feed'}`,
      index,
    );
  const colon = line.indexOf(':');
  if (colon <= 0) throw new RecurrenceError('must look like NAME:VALUE, e.g. RRULE:FREQ=WEEKLY', index);
  const [name = '', ...paramTexts] = line.slice(0, colon).split(';');
  const params = new Map<string, string>();
  for (const text of paramTexts) {
    const eq = text.indexOf('=');
    if (eq <= 0) throw new RecurrenceError(`parameter "${text}" must look like NAME=VALUE`, index);
    params.set(text.slice(0, eq).toUpperCase(), text.slice(eq + 1).replace(/^"(.*)"$/, '$1'));
  }
  const value = line.slice(colon + 1).trim();
  if (!value) throw new RecurrenceError('has no value', index);
  return { name: name.trim().toUpperCase(), params, value };
}

type Moment = { kind: 'date'; day: string; ms: number } | { kind: 'time'; ms: number };

/** One EXDATE or RDATE value, in floating local time of the event's zone. */
function parseMoment(text: string, params: Map<string, string>, zone: string, index: number): Moment {
  const valueType = params.get('VALUE')?.toUpperCase();
  if (valueType && valueType !== 'DATE' && valueType !== 'DATE-TIME')
    throw new RecurrenceError(`VALUE=${valueType} is not supported (use DATE or DATE-TIME)`, index);
  const date = DATE.exec(text);
  if (date) {
    if (valueType === 'DATE-TIME') throw new RecurrenceError(`"${text}" is a date, not a date-time`, index);
    const [, y, m, d] = date.map(Number) as [number, number, number, number];
    const ms = Date.UTC(y, m - 1, d);
    if (!DateTime.fromObject({ year: y, month: m, day: d }, { zone: 'utc' }).isValid)
      throw new RecurrenceError(`"${text}" is not a valid date`, index);
    return { kind: 'date', day: localDay(ms), ms };
  }
  const dateTime = DATE_TIME.exec(text);
  if (!dateTime || valueType === 'DATE')
    throw new RecurrenceError(`"${text}" must be YYYYMMDD or YYYYMMDDTHHMMSS[Z]`, index);
  const [y, mo, d, h, mi, s] = dateTime.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fields = { year: y, month: mo, day: d, hour: h, minute: mi, second: s };
  const tzid = params.get('TZID');
  if (dateTime[7] === 'Z' && tzid)
    throw new RecurrenceError('a UTC time (…Z) cannot also have a TZID', index);
  const sourceZone = dateTime[7] === 'Z' ? 'utc' : tzid;
  if (sourceZone === undefined) {
    if (!DateTime.fromObject(fields, { zone: 'utc' }).isValid)
      throw new RecurrenceError(`"${text}" is not a valid date-time`, index);
    return { kind: 'time', ms: Date.UTC(y, mo - 1, d, h, mi, s) };
  }
  const instant = DateTime.fromObject(fields, { zone: sourceZone });
  if (!instant.isValid) throw new RecurrenceError(`"${text}" (TZID ${tzid}) is not a valid date-time`, index);
  return { kind: 'time', ms: floating(instant.setZone(zone)) };
}

function parseRule(value: string, startFloating: number, zone: string, index: number): Rule | null {
  const parts = new Map<string, string>();
  for (const part of value.toUpperCase().split(';')) {
    const [key = '', partValue, extra] = part.split('=');
    if (!key || partValue === undefined || partValue === '' || extra !== undefined)
      throw new RecurrenceError(`rule part "${part}" must look like KEY=VALUE`, index);
    if (parts.has(key)) throw new RecurrenceError(`rule part ${key} appears twice`, index);
    parts.set(key, partValue);
  }
  for (const [key, partValue] of parts) {
    const bad = (why: string) => new RecurrenceError(`${key}=${partValue}: ${why}`, index);
    switch (key) {
      case 'FREQ':
        if (TOO_FREQUENT.has(partValue)) throw bad('the most frequent supported rule is DAILY');
        if (!(partValue in FREQUENCIES)) throw bad('must be YEARLY, MONTHLY, WEEKLY or DAILY');
        break;
      case 'INTERVAL':
        if (!/^\d{1,4}$/.test(partValue) || Number(partValue) < 1) throw bad('must be 1..9999');
        break;
      case 'COUNT':
        if (!/^\d{1,7}$/.test(partValue) || Number(partValue) < 1) throw bad('must be a positive integer');
        break;
      case 'UNTIL':
        if (!DATE.test(partValue) && !DATE_TIME.test(partValue))
          throw bad('must be YYYYMMDD or YYYYMMDDTHHMMSS[Z]');
        break;
      case 'BYDAY':
        if (!new RegExp(`^([+-]?[1-9]\\d?)?${WEEKDAY}(,([+-]?[1-9]\\d?)?${WEEKDAY})*$`).test(partValue))
          throw bad('must be weekdays such as MO,WE or 1MO,-1FR (no 0 before a weekday)');
        break;
      case 'WKST':
        if (!new RegExp(`^${WEEKDAY}$`).test(partValue)) throw bad('must be a weekday such as MO');
        break;
      default: {
        const list = NUMBER_LISTS[key];
        if (!list) throw new RecurrenceError(`rule part ${key} is not supported`, index);
        if (!isNumberList(partValue, list))
          throw bad(`must be a comma-separated list of ${list.signed ? '±' : ''}${list.min}..${list.max}`);
      }
    }
  }
  if (!parts.has('FREQ')) throw new RecurrenceError('a rule needs FREQ', index);
  if (parts.has('COUNT') && parts.has('UNTIL'))
    throw new RecurrenceError('a rule has COUNT or UNTIL, not both', index);
  const byDay = parts.get('BYDAY');
  if (byDay) {
    const freq = parts.get('FREQ');
    // RFC 5545: the number counts weeks of the month with FREQ=MONTHLY or with BYMONTH.
    const inMonth = freq === 'MONTHLY' || (freq === 'YEARLY' && parts.has('BYMONTH'));
    const max = inMonth ? MONTH_ORDINAL_MAX : YEAR_ORDINAL_MAX;
    for (const day of byDay.split(',')) {
      const ordinal = /^[+-]?\d+/.exec(day)?.[0];
      if (ordinal !== undefined && Math.abs(Number(ordinal)) > max)
        throw new RecurrenceError(
          `BYDAY=${byDay}: the number in ${day} must be 1..${max} or -${max}..-1 (weeks of ${inMonth ? 'a month' : 'a year'})`,
          index,
        );
    }
  }

  const until = parts.get('UNTIL');
  let untilFloating: number | undefined;
  if (until) {
    const moment = parseMoment(until, new Map(), zone, index);
    // A date UNTIL includes that whole local day.
    untilFloating = moment.kind === 'date' ? moment.ms + DAY_MS - 1 : moment.ms;
    if (untilFloating < startFloating)
      throw new RecurrenceError('UNTIL is before the start of the event', index);
  }
  let options: ReturnType<typeof RRule.parseString>;
  let rule: Rule;
  let first: number | null;
  try {
    options = {
      ...RRule.parseString(value.toUpperCase()),
      dtstart: new Date(startFloating),
      tzid: null,
      until: untilFloating === undefined ? null : new Date(untilFloating),
    };
    rule = new RRule(options);
    first = firstOccurrence(rule);
  } catch (error) {
    // The checks above should leave nothing for rrule to refuse; if it does, it is still the client's rule.
    throw new RecurrenceError(
      `cannot be used: ${error instanceof Error ? error.message : String(error)}`,
      index,
    );
  }
  // Without this, a rule whose BY parts never match together (BYMONTH=2;BYMONTHDAY=30) would
  // make every expansion step to the year 9999.
  if (first === null)
    throw new RecurrenceError(
      `has no occurrence within ${FIRST_OCCURRENCE_YEARS} years after the start of the event (its BY parts and INTERVAL never or only rarely match)`,
      index,
    );
  // RFC 5545 §3.3.10: DTSTART counts as the first occurrence, also when the rule does not
  // generate it; rrule counts COUNT over its own dates only.
  const count = rule.options.count;
  if (count && first !== startFloating)
    return count === 1 ? null : new RRule({ ...options, count: count - 1 });
  return rule;
}

/**
 * Calls `each` with the dates `rule` generates, in order, until it answers false, the
 * rule ends, or rrule has looked at `periods` periods (steps of FREQ × INTERVAL, the
 * first included). Answers true when it stopped for the period budget. `overrides`
 * replace parsed options for this scan only.
 *
 * rrule's all(), between() and after() stop only at a generated date past their bound,
 * at COUNT or UNTIL, or after the year 9999: for a rule whose BY parts never match they
 * step period by period to 9999 (seconds of CPU with the event loop blocked). rrule has
 * no option to bound that, but its loop reads INTERVAL again after each period and ends
 * when it is 0: here the options answer 0 once the budget is spent. rrule (2.8.1) reads
 * INTERVAL once when it starts, then twice per period (that check, then the step to the
 * next period); the tests pin both the bound and the reach of the scan.
 */
function scanPeriods(
  rule: Rule,
  periods: number,
  each: (date: Date) => boolean,
  overrides: Partial<Rule['options']> = {},
): boolean {
  const parsed = rule.options;
  let reads = 0;
  let spent = false;
  const descriptors: PropertyDescriptorMap = {
    interval: {
      get() {
        reads += 1;
        if (reads < 2 * periods) return parsed.interval;
        spent = true;
        return 0;
      },
    },
  };
  for (const [key, value] of Object.entries(overrides)) descriptors[key] = { value };
  const probe = new RRule(rule.origOptions, true);
  probe.options = Object.create(parsed, descriptors);
  probe.all(each);
  return spent;
}

/**
 * Floating milliseconds of the first date the rule's pattern generates (COUNT and
 * UNTIL left aside) within FIRST_OCCURRENCE_YEARS after its start, or null.
 */
function firstOccurrence(rule: Rule): number | null {
  const { dtstart, freq, interval } = rule.options;
  const start = DateTime.fromJSDate(dtstart, { zone: 'utc' });
  const end = start.plus({ years: FIRST_OCCURRENCE_YEARS }).toMillis();
  const days = (end - start.toMillis()) / DAY_MS;
  const periods = Math.floor(days / ((MIN_PERIOD_DAYS[freq] ?? 1) * interval)) + 2;
  let first: number | null = null;
  scanPeriods(
    rule,
    periods,
    (date) => {
      first = date.getTime();
      return false;
    },
    { count: null, until: null },
  );
  return first !== null && first <= end ? first : null;
}

function startFloatingOf(series: Series): number {
  return floating(DateTime.fromISO(series.startTime, { zone: series.timezone }));
}

/**
 * Checks and compiles recurrence lines for a series; throws RecurrenceError
 * naming the offending line. Null or an empty array means "not recurring".
 */
export function compileRecurrence(
  lines: readonly string[] | null | undefined,
  series: Series,
): CompiledRecurrence | null {
  if (!lines || lines.length === 0) return null;
  const zone = series.timezone;
  const start = startFloatingOf(series);
  const compiled: CompiledRecurrence = {
    rules: [],
    rdates: [],
    exdates: new Set(),
    exdays: new Set(),
    finite: true,
  };
  let recurs = false;
  lines.forEach((line, index) => {
    const { name, params, value } = parseContentLine(line, index);
    if (name === 'RRULE' || name === 'RDATE') recurs = true;
    switch (name) {
      case 'RRULE': {
        checkParams(name, params, index);
        // Null: DTSTART alone is all the rule gives (COUNT=1 when DTSTART is not one of its dates).
        const rule = parseRule(value, start, zone, index);
        if (!rule) break;
        if (!rule.options.count && !rule.options.until) compiled.finite = false;
        compiled.rules.push(rule);
        break;
      }
      case 'RDATE':
      case 'EXDATE':
        checkParams(name, params, index);
        for (const text of value.split(',')) {
          const moment = parseMoment(text.trim(), params, zone, index);
          if (name === 'EXDATE') {
            if (moment.kind === 'date') compiled.exdays.add(moment.day);
            else compiled.exdates.add(toSecond(moment.ms));
            continue;
          }
          // A date-only RDATE recurs at the series' own time of day.
          const ms = moment.kind === 'date' ? moment.ms + (((start % DAY_MS) + DAY_MS) % DAY_MS) : moment.ms;
          if (ms < start)
            throw new RecurrenceError('an RDATE must not be before the start of the event', index);
          compiled.rdates.push(ms);
        }
        break;
      default:
        throw new RecurrenceError(
          `${name || 'the line'} is not supported (use RRULE, EXDATE or RDATE)`,
          index,
        );
    }
  });
  if (!recurs) throw new RecurrenceError('a recurrence needs an RRULE or an RDATE line', 0);
  return compiled;
}

/** How an occurrence's end follows from its start: all-day events span whole local days. */
function spanOf(series: Series) {
  const zone = series.timezone;
  const start = DateTime.fromISO(series.startTime, { zone });
  const end = DateTime.fromISO(series.endTime, { zone });
  if (series.allDay) {
    const days = Math.round(end.startOf('day').diff(start.startOf('day'), 'days').days);
    return { approxMs: days * (DAY_MS + 3_600_000), endOf: (at: DateTime) => at.plus({ days }) };
  }
  const ms = end.toMillis() - start.toMillis();
  return { approxMs: ms, endOf: (at: DateTime) => at.plus({ milliseconds: ms }) };
}

function isExcluded(compiled: CompiledRecurrence, ms: number): boolean {
  return compiled.exdates.has(toSecond(ms)) || compiled.exdays.has(localDay(ms));
}

/**
 * Occurrences of a series that overlap [from, to) (epoch milliseconds), in start
 * order. A series without recurrence is its one occurrence. Throws
 * OccurrenceLimitError when more than `limit` occurrences fall in the range.
 */
export function occurrencesBetween(
  series: Series,
  compiled: CompiledRecurrence | null,
  from: number,
  to: number,
  limit: number,
): Occurrence[] {
  const zone = series.timezone;
  const span = spanOf(series);
  const overlapping = (startAt: DateTime): Occurrence | null => {
    const endAt = span.endOf(startAt);
    if (startAt.toMillis() >= to || endAt.toMillis() <= from) return null;
    return { start: startAt.toUTC().toISO()!, end: endAt.toUTC().toISO()! };
  };
  if (!compiled) {
    const single = overlapping(DateTime.fromISO(series.startTime, { zone }));
    return single ? [single] : [];
  }

  // Candidates are looked for with a day of slack on both sides (time-zone offsets),
  // then filtered exactly on real instants.
  const low = floating(DateTime.fromMillis(from - span.approxMs, { zone })) - DAY_MS;
  const high = floating(DateTime.fromMillis(to, { zone })) + DAY_MS;
  const candidates = new Set<number>();
  const add = (ms: number) => {
    if (ms < low || ms > high || isExcluded(compiled, ms)) return;
    candidates.add(ms);
    if (candidates.size > limit + 2) throw new OccurrenceLimitError();
  };
  // DTSTART is always the first occurrence (RFC 5545).
  add(startFloatingOf(series));
  for (const ms of compiled.rdates) add(ms);
  for (const rule of compiled.rules) {
    rule.between(new Date(low), new Date(high), true, (date) => {
      add(date.getTime());
      return true;
    });
  }

  const occurrences: Occurrence[] = [];
  for (const ms of [...candidates].sort((a, b) => a - b)) {
    const occurrence = overlapping(fromFloating(ms, zone));
    if (!occurrence) continue;
    occurrences.push(occurrence);
    if (occurrences.length > limit) throw new OccurrenceLimitError();
  }
  return occurrences;
}

/**
 * End of the series' last occurrence (ISO-8601 UTC), or null when it has none
 * (a rule without COUNT or UNTIL, or one too long to be worth scanning).
 * Range queries use it to skip series that ended before the range.
 */
export function seriesEnd(series: Series, compiled: CompiledRecurrence | null): string | null {
  if (!compiled) return series.endTime;
  if (!compiled.finite) return null;
  let last = startFloatingOf(series);
  for (const ms of compiled.rdates) last = Math.max(last, ms);
  for (const rule of compiled.rules) {
    let scanned = 0;
    let ruleLast: number | undefined;
    const spent = scanPeriods(rule, FINITE_SCAN_PERIODS, (date) => {
      scanned += 1;
      ruleLast = date.getTime();
      return scanned <= FINITE_SCAN_LIMIT;
    });
    if (spent || scanned > FINITE_SCAN_LIMIT) return null;
    if (ruleLast !== undefined) last = Math.max(last, ruleLast);
  }
  return spanOf(series).endOf(fromFloating(last, series.timezone)).toUTC().toISO()!;
}
