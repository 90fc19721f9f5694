import { DateTime } from 'luxon';
import rrulePkg from 'rrule';
import { DAY_MS } from './floating-time.js';
import { DATE, DATE_TIME, parseMoment, RecurrenceError } from './recurrence-lines.js';

const { RRule } = rrulePkg;
export type Rule = InstanceType<typeof RRule>;

/** An RRULE line's value checked part by part and compiled into an rrule iterator; the scans bounding it. */

const FREQUENCIES: Record<string, number> = {
  YEARLY: RRule.YEARLY,
  MONTHLY: RRule.MONTHLY,
  WEEKLY: RRule.WEEKLY,
  DAILY: RRule.DAILY,
};
const TOO_FREQUENT = new Set(['HOURLY', 'MINUTELY', 'SECONDLY']);
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
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

/** The rule's KEY=VALUE parts: each key once, each value checked on its own. */
function ruleParts(value: string, index: number): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of value.toUpperCase().split(';')) {
    const [key = '', partValue, extra] = part.split('=');
    if (!key || partValue === undefined || partValue === '' || extra !== undefined)
      throw new RecurrenceError(`rule part "${part}" must look like KEY=VALUE`, index);
    if (parts.has(key)) throw new RecurrenceError(`rule part ${key} appears twice`, index);
    parts.set(key, partValue);
  }
  for (const [key, partValue] of parts) checkRulePart(key, partValue, index);
  return parts;
}

function checkRulePart(key: string, partValue: string, index: number): void {
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

/** What takes several parts: FREQ is there, COUNT and UNTIL are not both, BYDAY's numbers fit FREQ. */
function checkRuleCombination(parts: Map<string, string>, index: number): void {
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
}

/** UNTIL in floating milliseconds (a date includes that whole local day); undefined without one. */
function untilOf(
  parts: Map<string, string>,
  startFloating: number,
  zone: string,
  index: number,
): number | undefined {
  const until = parts.get('UNTIL');
  if (!until) return undefined;
  const moment = parseMoment(until, new Map(), zone, index);
  // A date UNTIL includes that whole local day.
  const untilFloating = moment.kind === 'date' ? moment.ms + DAY_MS - 1 : moment.ms;
  if (untilFloating < startFloating)
    throw new RecurrenceError('UNTIL is before the start of the event', index);
  return untilFloating;
}

/**
 * The compiled rule of an RRULE value for a series starting at `startFloating`; throws
 * RecurrenceError naming what is wrong. Null: DTSTART alone is all the rule gives.
 */
export function parseRule(value: string, startFloating: number, zone: string, index: number): Rule | null {
  const parts = ruleParts(value, index);
  checkRuleCombination(parts, index);
  const untilFloating = untilOf(parts, startFloating, zone, index);
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
export function scanPeriods(
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
