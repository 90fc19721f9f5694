import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { type EventContext, eventWith } from './context.js';
import { checkEvent, type EventFields } from './event-rules.js';
import type { Event, EventInput, EventPatch, ExternalRef } from './schemas.js';

/** Options only trusted callers (external calendar sync) pass; HTTP clients cannot set them. */
export interface EventWriteOptions {
  /** Sets (or with null clears) the read-only `external` block. */
  external?: ExternalRef | null;
  /**
   * Create only: the event mirrors this reservation in its resource's booking calendar
   * (src/modules/booking-calendar); busy reads leave it out, as the reservation takes the time.
   */
  bookingReservationId?: number;
}

function externalClash(error: unknown): never {
  if (isUniqueViolation(error))
    throw conflict('CONFLICT', 'This calendar already has an event with that external id');
  throw error;
}

/** Tells the change listener (calendar sync) after the write committed; its failure never undoes the write. */
async function changed(
  { onEventChanged }: EventContext,
  actor: Actor,
  type: 'created' | 'updated' | 'deleted',
  event: Event,
) {
  if (!onEventChanged) return;
  try {
    await onEventChanged(actor, { type, event });
  } catch {
    // The listener records its own failures; the write stays done.
  }
}

export async function createEvent(
  context: EventContext,
  actor: Actor,
  calendarId: number,
  input: EventInput,
  options: EventWriteOptions = {},
): Promise<Event> {
  const { repo, calendars, onEventCreated } = context;
  const calendar = await calendars.requireOwned(actor, calendarId);
  const values = checkEvent(calendarId, {
    title: input.title,
    description: input.description ?? null,
    location: input.location ?? null,
    startTime: input.startTime,
    endTime: input.endTime,
    allDay: input.allDay ?? false,
    timezone: input.timezone ?? calendar.timezone,
    recurrence: input.recurrence ?? null,
    reminders: input.reminders ?? [],
    transparency: input.transparency ?? 'opaque',
  });
  const created = await repo
    .insert(values, options.external, nowIso(), options.bookingReservationId ?? null)
    .catch(externalClash);
  if (onEventCreated) {
    try {
      await onEventCreated(actor, created);
    } catch {
      // The hook records its own failures (automation audit); the event stays created.
    }
  }
  await changed(context, actor, 'created', created);
  return created;
}

export async function updateEvent(
  context: EventContext,
  actor: Actor,
  eventId: number,
  patch: EventPatch,
  options: EventWriteOptions = {},
): Promise<Event> {
  const { repo, calendars } = context;
  const event = await eventWith(context, 'requireOwned', actor, eventId);
  const calendarId = patch.calendarId ?? event.calendarId;
  if (calendarId !== event.calendarId) await calendars.requireOwned(actor, calendarId);
  const pick = <K extends keyof EventFields>(key: K, current: EventFields[K]): EventFields[K] =>
    patch[key] === undefined ? current : (patch[key] as EventFields[K]);
  const values = checkEvent(calendarId, {
    title: pick('title', event.title),
    description: pick('description', event.description),
    location: pick('location', event.location),
    startTime: pick('startTime', event.startTime),
    endTime: pick('endTime', event.endTime),
    allDay: pick('allDay', event.allDay),
    timezone: pick('timezone', event.timezone),
    recurrence: pick('recurrence', event.recurrence),
    reminders: pick('reminders', event.reminders),
    transparency: pick('transparency', event.transparency),
  });
  const updated = await repo.update(eventId, values, options.external, nowIso()).catch(externalClash);
  await changed(context, actor, 'updated', updated);
  return updated;
}

export async function deleteEvent(context: EventContext, actor: Actor, eventId: number): Promise<void> {
  const event = await eventWith(context, 'requireOwned', actor, eventId);
  await context.repo.delete(eventId);
  await changed(context, actor, 'deleted', event);
}
