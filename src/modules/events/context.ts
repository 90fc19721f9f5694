import type { Db } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { notFound } from '../../lib/errors.js';
import type { CalendarService } from '../calendars/service.js';
import type { EventRepo } from './repo.js';
import type { Event } from './schemas.js';

/** Runs after an event was created and committed (automation); never fails the create. */
export type EventCreatedHook = (actor: Actor, event: Event) => Promise<void>;

/**
 * Runs after a create, change or delete through this service has committed (calendar sync
 * pushes it to the provider); never fails the write. `event` is the event as written (as it
 * was, for a delete).
 */
export type EventChangedHook = (
  actor: Actor,
  change: { type: 'created' | 'updated' | 'deleted'; event: Event },
) => Promise<void>;

export interface EventServiceDeps {
  db: Db;
  calendars: CalendarService;
  onEventCreated?: EventCreatedHook;
  onEventChanged?: EventChangedHook;
}

/** What every use case of the service shares: its dependencies and the event repo on the main connection. */
export interface EventContext extends EventServiceDeps {
  repo: EventRepo;
}

/**
 * The event when the actor passes `access` on its calendar: 404 when unseen (never revealing
 * it exists); `requireOwned` answers 403 when the calendar is only shared with them.
 */
export async function eventWith(
  { repo, calendars }: EventContext,
  access: 'requireReadable' | 'requireOwned',
  actor: Actor,
  eventId: number,
): Promise<Event> {
  const event = await repo.findById(eventId);
  if (!event) throw notFound('Event');
  await calendars[access](actor, event.calendarId, 'Event');
  return event;
}
