import { DateTime } from 'luxon';
import { z } from 'zod';
import type { Reminder } from '../../events/schemas.js';
import type { EventWrite, ExternalEvent, ExternalTime } from './port.js';

/**
 * The Google Calendar API's JSON (provider A) and its mapping to and from the port's events
 * (provider-a.ts speaks the HTTP).
 */

const gTime = z.object({
  date: z.string().optional(),
  dateTime: z.string().optional(),
  timeZone: z.string().optional(),
});
type GTime = z.infer<typeof gTime>;

const gReminder = z.object({ method: z.string(), minutes: z.number() });

export const gEvent = z.object({
  id: z.string().min(1),
  etag: z.string().optional(),
  status: z.string().optional(),
  summary: z.string().nullish(),
  description: z.string().nullish(),
  location: z.string().nullish(),
  start: gTime.optional(),
  end: gTime.optional(),
  recurrence: z.array(z.string()).nullish(),
  recurringEventId: z.string().optional(),
  transparency: z.string().nullish(),
  originalStartTime: gTime.optional(),
  reminders: z
    .object({ useDefault: z.boolean().optional(), overrides: z.array(gReminder).optional() })
    .optional(),
});
type GEvent = z.infer<typeof gEvent>;

export const eventsPage = z.object({
  timeZone: z.string().optional(),
  defaultReminders: z.array(gReminder).optional(),
  nextPageToken: z.string().optional(),
  nextSyncToken: z.string().optional(),
  items: z.array(z.unknown()).optional(),
});

export const calendarListPage = z.object({
  nextPageToken: z.string().optional(),
  items: z
    .array(
      z.object({
        id: z.string().min(1),
        summary: z.string().nullish(),
        summaryOverride: z.string().nullish(),
        primary: z.boolean().optional(),
        timeZone: z.string().optional(),
        deleted: z.boolean().optional(),
      }),
    )
    .optional(),
});

export const channelJson = z.object({
  id: z.string().min(1),
  resourceId: z.string().optional(),
  expiration: z.union([z.string(), z.number()]).optional(),
});

export function toReminders(list: z.infer<typeof gReminder>[]): Reminder[] {
  // Google still lists the retired `sms` method on old events; it has no local counterpart.
  return list.flatMap(({ method, minutes }) =>
    method === 'email' || method === 'popup' ? [{ method, minutes }] : [],
  );
}

function toTime(time: GTime | undefined): ExternalTime {
  if (time?.date) return { date: time.date };
  if (time?.dateTime) {
    const parsed = DateTime.fromISO(time.dateTime, { zone: time.timeZone ?? 'utc' });
    if (parsed.isValid) return { instant: parsed.toUTC().toISO()! };
  }
  return { instant: new Date(0).toISOString() };
}

export function toEvent(item: GEvent, defaults: Reminder[]): ExternalEvent {
  const cancelled = item.status === 'cancelled';
  let reminders: Reminder[] | null = null;
  if (item.reminders)
    reminders = item.reminders.useDefault ? defaults : toReminders(item.reminders.overrides ?? []);
  return {
    externalId: item.id,
    etag: item.etag ?? null,
    cancelled,
    seriesId: item.recurringEventId ?? null,
    originalStart: item.originalStartTime ? toTime(item.originalStartTime) : null,
    seriesMasterId: null,
    title: item.summary ?? '',
    description: item.description ?? null,
    location: item.location ?? null,
    allDay: Boolean(item.start?.date),
    start: toTime(item.start),
    end: toTime(item.end),
    timezone: item.start?.timeZone ?? null,
    recurrence: item.recurrence && item.recurrence.length > 0 ? item.recurrence : null,
    reminders,
    // Google's default (absent) is opaque: busy.
    transparency: item.transparency === 'transparent' ? 'transparent' : 'opaque',
  };
}

/** Local values to Google's event resource; only the fields the service owns (PATCH leaves the rest). */
export function toGoogle(event: EventWrite): Record<string, unknown> {
  const zone = event.timezone;
  const time = (iso: string) =>
    event.allDay
      ? { date: DateTime.fromISO(iso, { zone }).toISODate(), dateTime: null, timeZone: zone }
      : { dateTime: iso, date: null, timeZone: zone };
  return {
    summary: event.title,
    description: event.description ?? '',
    location: event.location ?? '',
    start: time(event.startTime),
    end: time(event.endTime),
    ...(event.transparency ? { transparency: event.transparency } : {}),
    // Never cleared from here: a series this service could only import as its first occurrence
    // (an hourly rule), or a moved occurrence, must not lose its rule through a local edit.
    ...(event.recurrence ? { recurrence: event.recurrence } : {}),
    ...(event.reminders
      ? {
          reminders: {
            useDefault: false,
            overrides: event.reminders.map(({ method, minutes }) => ({ method, minutes })),
          },
        }
      : {}),
  };
}
