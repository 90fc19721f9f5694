import { DateTime } from 'luxon';
import { z } from 'zod';
import { ianaZone, toPatternedRecurrence } from './graph-recurrence.js';
import type { EventWrite, ExternalEvent, ExternalTime } from './port.js';

/**
 * Microsoft Graph's event JSON (provider B) and its mapping to and from the port's events.
 * Graph is asked for times in UTC and bodies as text (provider-b.ts's Prefer header).
 */

const gTime = z.object({ dateTime: z.string(), timeZone: z.string().optional() });

export const gEvent = z.object({
  id: z.string().min(1),
  '@odata.etag': z.string().optional(),
  '@removed': z.object({ reason: z.string().optional() }).optional(),
  changeKey: z.string().optional(),
  subject: z.string().nullish(),
  body: z.object({ contentType: z.string().optional(), content: z.string().nullish() }).nullish(),
  location: z.object({ displayName: z.string().nullish() }).nullish(),
  start: gTime.nullish(),
  end: gTime.nullish(),
  isAllDay: z.boolean().nullish(),
  showAs: z.string().nullish(),
  isCancelled: z.boolean().nullish(),
  type: z.string().nullish(),
  seriesMasterId: z.string().nullish(),
  originalStartTimeZone: z.string().nullish(),
  isReminderOn: z.boolean().nullish(),
  reminderMinutesBeforeStart: z.number().nullish(),
});
type GEvent = z.infer<typeof gEvent>;

function toTime(time: z.infer<typeof gTime> | null | undefined, allDay: boolean): ExternalTime {
  if (!time) return { instant: new Date(0).toISOString() };
  // All-day events are dates; Graph writes them as midnight of the requested zone.
  if (allDay) return { date: time.dateTime.slice(0, 10) };
  const zone = ianaZone(time.timeZone) ?? 'UTC';
  const parsed = DateTime.fromISO(time.dateTime, { zone });
  return { instant: parsed.isValid ? parsed.toUTC().toISO()! : new Date(0).toISOString() };
}

/** Text of a body; an HTML one (a server that ignored our Prefer) loses its tags. */
function bodyText(body: GEvent['body']): string | null {
  const content = body?.content;
  if (!content) return null;
  if (body?.contentType?.toLowerCase() !== 'html') return content;
  return content
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
export function toEvent(item: GEvent): ExternalEvent {
  const allDay = item.isAllDay === true;
  const removed = item['@removed'] !== undefined;
  const etag = item['@odata.etag'] ?? (item.changeKey ? `W/"${item.changeKey}"` : null);
  return {
    externalId: item.id,
    etag,
    cancelled: removed || item.isCancelled === true,
    seriesId: null,
    originalStart: null,
    seriesMasterId: item.seriesMasterId ?? null,
    title: item.subject ?? '',
    description: bodyText(item.body),
    location: item.location?.displayName || null,
    allDay,
    start: toTime(item.start, allDay),
    end: toTime(item.end, allDay),
    timezone: ianaZone(item.originalStartTimeZone) ?? null,
    // Occurrences arrive expanded; a series master (from a direct read) keeps no RRULE here.
    recurrence: null,
    // Only `free` is free time; tentative, busy, oof and workingElsewhere all keep the person away.
    transparency: item.showAs === 'free' ? 'transparent' : 'opaque',
    reminders:
      item.isReminderOn === undefined || item.isReminderOn === null
        ? null
        : item.isReminderOn
          ? [{ minutes: item.reminderMinutesBeforeStart ?? 15, method: 'popup' }]
          : [],
  };
}

export function toGraph(event: EventWrite): Record<string, unknown> {
  const zone = event.timezone;
  const wall = (iso: string) => ({
    dateTime: DateTime.fromISO(iso, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss"),
    timeZone: zone,
  });
  const start = DateTime.fromISO(event.startTime, { zone });
  const recurrence = event.recurrence?.length ? toPatternedRecurrence(event.recurrence, start) : null;
  const first = event.reminders?.[0];
  return {
    subject: event.title,
    body: { contentType: 'text', content: event.description ?? '' },
    location: { displayName: event.location ?? '' },
    start: wall(event.startTime),
    end: wall(event.endTime),
    isAllDay: event.allDay,
    recurrence,
    ...(event.transparency ? { showAs: event.transparency === 'transparent' ? 'free' : 'busy' } : {}),
    // Graph holds one reminder per event: the earliest local one.
    ...(event.reminders
      ? {
          isReminderOn: first !== undefined,
          ...(first
            ? { reminderMinutesBeforeStart: Math.max(...event.reminders.map((reminder) => reminder.minutes)) }
            : {}),
        }
      : {}),
  };
}

/** Whether Graph can hold this local event (a series only when its rule converts). */
export function graphCanHold(event: EventWrite): boolean {
  if (!event.recurrence?.length) return true;
  return (
    toPatternedRecurrence(event.recurrence, DateTime.fromISO(event.startTime, { zone: event.timezone })) !==
    null
  );
}
