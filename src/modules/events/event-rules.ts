import { DateTime } from 'luxon';
import { validationFailed } from '../../lib/errors.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import { type CompiledRecurrence, compileRecurrence, RecurrenceError, seriesEnd } from './recurrence.js';
import {
  type EventValues,
  instant,
  REMINDER_MAX_MINUTES,
  type Reminder,
  type Transparency,
} from './schemas.js';

/**
 * The rules every event meets, however it is written (HTTP, MCP, calendar sync): times,
 * all-day, recurrence, reminders.
 */

/** Reminder minutes outside 0..1440 are clamped, not refused (also for reminders imported by sync). */
export function clampReminderMinutes(minutes: number): number {
  if (!Number.isFinite(minutes)) return 0;
  return Math.min(REMINDER_MAX_MINUTES, Math.max(0, Math.round(minutes)));
}

/** Clamps minutes and drops reminders that became identical. */
export function normaliseReminders(reminders: readonly Reminder[]): Reminder[] {
  const seen = new Set<string>();
  const result: Reminder[] = [];
  for (const { minutes, method } of reminders) {
    const clamped = { minutes: clampReminderMinutes(minutes), method };
    const key = `${clamped.minutes}:${method}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(clamped);
  }
  return result;
}

/** 400 VALIDATION_FAILED naming the event's field at `path`. */
export const invalid = (path: string, message: string) =>
  validationFailed(`Invalid event: ${path}: ${message}`, [{ path, message }]);

/** Epoch milliseconds of an ISO 8601 date-time with Z or an offset (the same rule as the HTTP schemas). */
export function toMillis(value: string, path: string): number {
  if (!instant.safeParse(value).success)
    throw invalid(path, 'must be an ISO 8601 date-time with Z or an offset');
  return Date.parse(value);
}

const toInstant = (value: string, path: string) => new Date(toMillis(value, path)).toISOString();

function isLocalMidnight(iso: string, zone: string): boolean {
  const local = DateTime.fromISO(iso, { zone });
  return local.hour === 0 && local.minute === 0 && local.second === 0 && local.millisecond === 0;
}

export interface EventFields {
  title: string;
  description: string | null;
  location: string | null;
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
  recurrence: readonly string[] | null;
  reminders: readonly Reminder[];
  /** Absent: opaque (busy). */
  transparency?: Transparency | undefined;
}

/** Applies every event rule (times, all-day, recurrence, reminders); answers the values to store. */
export function checkEvent(calendarId: number, fields: EventFields): EventValues {
  const { timezone, allDay } = fields;
  if (!isValidTimeZone(timezone))
    throw invalid('timezone', 'must be an IANA time zone such as Europe/Berlin');
  const startTime = toInstant(fields.startTime, 'startTime');
  const endTime = toInstant(fields.endTime, 'endTime');
  if (endTime <= startTime) throw invalid('endTime', 'must be after startTime');
  if (allDay) {
    for (const [path, value] of [
      ['startTime', startTime],
      ['endTime', endTime],
    ] as const) {
      if (!isLocalMidnight(value, timezone))
        throw invalid(path, `an all-day event starts and ends at midnight in ${timezone}`);
    }
  }
  const series = { startTime, endTime, allDay, timezone };
  let compiled: CompiledRecurrence | null;
  try {
    compiled = compileRecurrence(fields.recurrence, series);
  } catch (error) {
    if (error instanceof RecurrenceError) throw invalid(`recurrence.${error.index}`, error.message);
    throw error;
  }
  return {
    calendarId,
    title: fields.title,
    description: fields.description,
    location: fields.location,
    startTime,
    endTime,
    allDay,
    timezone,
    recurrence: compiled ? [...(fields.recurrence ?? [])] : null,
    reminders: normaliseReminders(fields.reminders),
    transparency: fields.transparency ?? 'opaque',
    occursUntil: seriesEnd(series, compiled),
  };
}
