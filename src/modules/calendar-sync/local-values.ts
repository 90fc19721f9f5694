import { DateTime } from 'luxon';
import { DomainError } from '../../lib/errors.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import type { EventValues, SyncedEventRow } from '../events/schemas.js';
import { checkEvent, type EventFields } from '../events/service.js';
import { exdateLines } from './exdates.js';
import type { ExternalEvent, ExternalTime } from './providers/port.js';
import type { Mapping } from './repo.js';

// Checking a zone builds an Intl formatter; a sync asks about the same few zones thousands of times.
const zoneChecks = new Map<string, boolean>();

/** The zone when it is a valid IANA zone, else undefined. */
export function validZone(zone: string | null | undefined): string | undefined {
  if (!zone) return undefined;
  let valid = zoneChecks.get(zone);
  if (valid === undefined) {
    valid = isValidTimeZone(zone);
    if (zoneChecks.size < 1000) zoneChecks.set(zone, valid);
  }
  return valid ? zone : undefined;
}
const isRuleLine = (line: string) => /^(RRULE|EXDATE|RDATE)[:;]/i.test(line);

function toInstant(time: ExternalTime, zone: string): string {
  if ('date' in time) return DateTime.fromISO(time.date, { zone }).toUTC().toISO()!;
  return time.instant;
}

const recurrenceColumn = (lines: readonly string[] | null) =>
  lines && lines.length > 0 ? JSON.stringify(lines) : null;

/** Whether a stored event already shows these values (reminders only when they are imported). */
export function sameContent(row: SyncedEventRow, values: EventValues, withReminders: boolean): boolean {
  return (
    row.title === values.title &&
    row.description === values.description &&
    row.location === values.location &&
    row.startTime === values.startTime &&
    row.endTime === values.endTime &&
    row.allDay === values.allDay &&
    row.timezone === values.timezone &&
    (row.recurrence ?? null) === recurrenceColumn(values.recurrence) &&
    row.transparency === values.transparency &&
    (!withReminders || row.reminders === JSON.stringify(values.reminders))
  );
}

/** Local event values of an external event, or null when it cannot be stored. */
export function localValues(
  mapping: Mapping,
  event: ExternalEvent,
  zone: string,
  exdates: readonly string[],
): EventValues | null {
  const timezone = validZone(event.timezone) ?? zone;
  let startTime = toInstant(event.start, timezone);
  let endTime = toInstant(event.end, timezone);
  if (Date.parse(endTime) <= Date.parse(startTime)) {
    // Providers allow zero-length events; locally an event ends after it starts.
    endTime = event.allDay
      ? DateTime.fromISO(startTime, { zone: timezone }).plus({ days: 1 }).toUTC().toISO()!
      : new Date(Date.parse(startTime) + 60_000).toISOString();
  }
  if (event.allDay && 'instant' in event.start)
    startTime = DateTime.fromISO(startTime, { zone: timezone }).startOf('day').toUTC().toISO()!;
  const recurrence = event.recurrence
    ? [...event.recurrence.filter(isRuleLine), ...exdateLines(exdates)]
    : null;
  const fields: EventFields = {
    title: event.title.trim().slice(0, 500) || '(No title)',
    description: event.description ? event.description.slice(0, 10_000) : null,
    location: event.location ? event.location.trim().slice(0, 1000) || null : null,
    startTime,
    endTime,
    allDay: event.allDay,
    timezone,
    recurrence,
    reminders: mapping.importReminders ? (event.reminders ?? []) : [],
    transparency: event.transparency ?? 'opaque',
  };
  try {
    return checkEvent(mapping.localCalendarId, fields);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
  if (recurrence) {
    // A rule this service cannot expand (e.g. hourly): keep the first occurrence rather than nothing.
    try {
      return checkEvent(mapping.localCalendarId, { ...fields, recurrence: null });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return null;
}
