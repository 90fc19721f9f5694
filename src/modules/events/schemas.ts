import { z } from 'zod';
import { entityId, oneLine } from '../../http/schemas.js';
import { timeZone } from '../calendars/schemas.js';

export const REMINDER_MAX_MINUTES = 1440;

export const reminderMethod = z.enum(['popup', 'email']);

export const reminder = z.object({
  minutes: z.number().int().describe('Minutes before the start, 0..1440'),
  method: reminderMethod,
});
export type Reminder = z.infer<typeof reminder>;

const reminderInput = z.strictObject({
  minutes: z.number().int().describe('Minutes before the start; clamped to 0..1440, never refused'),
  method: reminderMethod,
});

/** An instant with its offset: `2025-03-20T09:00:00+01:00` or `2025-03-20T08:00:00Z`. */
export const instant = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time with Z or an offset');

const recurrence = z
  .array(z.string().trim().min(1).max(1000))
  .max(50)
  .nullable()
  .describe(
    'RFC 5545 lines, e.g. ["RRULE:FREQ=WEEKLY;BYDAY=MO", "EXDATE;TZID=Europe/Berlin:20250407T090000"]; ' +
      'RRULE (FREQ DAILY or less often), EXDATE and RDATE; expanded in the event time zone. null or [] for none',
  );

const title = oneLine(z.string().trim().min(1).max(500));

export const transparency = z
  .enum(['opaque', 'transparent'])
  .describe(
    'opaque: the time counts as busy (free/busy, resources blocking on their manager); transparent: free',
  );
export type Transparency = z.infer<typeof transparency>;
const description = z.string().max(10_000).nullable();
const location = oneLine(z.string().trim().max(1000)).nullable();

export const createEventBody = z.strictObject({
  title,
  description: description.optional(),
  location: location.optional(),
  startTime: instant.describe('Start of the (first) occurrence'),
  endTime: instant.describe('After startTime. All-day events start and end at local midnight of timezone'),
  allDay: z.boolean().optional().describe('Default false'),
  timezone: timeZone.optional().describe("IANA time zone; default the calendar's"),
  recurrence: recurrence.optional(),
  reminders: z.array(reminderInput).max(20).optional().describe('Default none'),
  transparency: transparency.optional().describe('Default opaque (busy)'),
});
export type EventInput = z.infer<typeof createEventBody>;

export const updateEventBody = z.strictObject({
  calendarId: entityId.optional().describe('Move the event to another calendar of yours'),
  title: title.optional(),
  description: description.optional(),
  location: location.optional(),
  startTime: instant.optional(),
  endTime: instant.optional(),
  allDay: z.boolean().optional(),
  timezone: timeZone.optional(),
  recurrence: recurrence.optional(),
  reminders: z.array(reminderInput).max(20).optional(),
  transparency: transparency.optional(),
});
export type EventPatch = z.infer<typeof updateEventBody>;

export const externalRef = z
  .object({
    provider: z.string(),
    externalId: z.string(),
    etag: z.string().nullable(),
    lastSyncedAt: z.string().nullable(),
  })
  .describe('Set by external calendar sync; read-only');
export type ExternalRef = z.infer<typeof externalRef>;

export const event = z.object({
  id: z.number().int(),
  calendarId: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  startTime: z.string(),
  endTime: z.string(),
  allDay: z.boolean(),
  timezone: z.string(),
  recurrence: z.array(z.string()),
  reminders: z.array(reminder),
  transparency,
  external: externalRef.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Event = z.infer<typeof event>;

export const eventOccurrence = z.object({
  eventId: z.number().int().describe('The event (series) this occurrence belongs to'),
  calendarId: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  startTime: z.string().describe('Start of this occurrence'),
  endTime: z.string().describe('End of this occurrence'),
  allDay: z.boolean(),
  timezone: z.string(),
  isRecurring: z.boolean(),
  reminders: z.array(reminder),
  transparency,
  external: externalRef.nullable(),
});
export type EventOccurrence = z.infer<typeof eventOccurrence>;

export const eventRangeQuery = z.object({
  from: instant.describe('Start of the range (inclusive)'),
  to: instant.describe('End of the range (exclusive); at most 366 days after from'),
});
export type EventRange = z.infer<typeof eventRangeQuery>;

export const freeBusyBody = z.strictObject({
  from: instant.describe('Start of the range (inclusive)'),
  to: instant.describe('End of the range (exclusive); at most 62 days after from'),
  calendarIds: z
    .array(entityId)
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Calendars of yours to answer for; default every calendar you own (within an agent its calendar scope)',
    ),
});
export type FreeBusyQuery = z.infer<typeof freeBusyBody>;

export const freeBusy = z.object({
  calendars: z.array(
    z.object({
      calendarId: z.number().int(),
      busy: z
        .array(z.object({ start: z.string(), end: z.string() }))
        .describe('Merged busy (opaque) time within the range, in order; never what the events are'),
    }),
  ),
});
export type FreeBusy = z.infer<typeof freeBusy>;

/** What an event is written with: its fields as stored, the calendar it belongs to. */
export interface EventValues {
  calendarId: number;
  title: string;
  description: string | null;
  location: string | null;
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
  recurrence: string[] | null;
  reminders: Reminder[];
  transparency: Transparency;
  occursUntil: string | null;
}

/** The columns of an event mirrored from a provider that calendar sync compares and writes. */
export interface SyncedEventRow {
  id: number;
  externalId: string;
  externalEtag: string | null;
  title: string;
  description: string | null;
  location: string | null;
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
  recurrence: string | null;
  reminders: string;
  transparency: Transparency;
}

/** Where an event mirrors a provider's event, as stored beside it. */
export interface ExternalColumns {
  externalProvider: string;
  externalId: string;
  externalEtag: string | null;
  externalLastSyncedAt: string;
}
