import { DateTime } from 'luxon';
import { floating, localDay } from './floating-time.js';

/** The content lines of a recurrence (`NAME;PARAM=VALUE:VALUE`) and the EXDATE and RDATE values they hold. */

/** A recurrence line that cannot be used; `index` is its position in the array. */
export class RecurrenceError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

export const DATE = /^(\d{4})(\d{2})(\d{2})$/;
export const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

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

export function checkParams(name: string, params: Map<string, string>, index: number) {
  if (name === 'RRULE' && params.size > 0) throw new RecurrenceError('RRULE takes no parameters', index);
  for (const [key, value] of params) {
    if (DATE_PARAMS.has(key)) continue;
    if (name === 'EXDATE' && key === SYNC_MARK.name && value.toUpperCase() === SYNC_MARK.value) continue;
    throw new RecurrenceError(`parameter ${key} is not supported (${name} takes VALUE and TZID)`, index);
  }
}

export function parseContentLine(line: string, index: number): ContentLine {
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

export type Moment = { kind: 'date'; day: string; ms: number } | { kind: 'time'; ms: number };

/** One EXDATE or RDATE value, in floating local time of the event's zone. */
export function parseMoment(text: string, params: Map<string, string>, zone: string, index: number): Moment {
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
