import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { type EventContext, type EventServiceDeps, eventWith } from './context.js';
import { findByExternalId, listOccurrences } from './event-reads.js';
import { createEvent, deleteEvent, type EventWriteOptions, updateEvent } from './event-writes.js';
import { freeBusy } from './free-busy.js';
import { createEventRepo, createSyncedEventRepo, type SyncedEventRepo } from './repo.js';
import type {
  Event,
  EventInput,
  EventOccurrence,
  EventPatch,
  EventRange,
  FreeBusy,
  FreeBusyQuery,
} from './schemas.js';

export type { EventChangedHook, EventCreatedHook, EventServiceDeps } from './context.js';
export { MAX_OCCURRENCES, MAX_RANGE_DAYS } from './event-reads.js';
export { checkEvent, clampReminderMinutes, type EventFields, normaliseReminders } from './event-rules.js';
export type { EventWriteOptions } from './event-writes.js';
export { MAX_FREE_BUSY_DAYS } from './free-busy.js';

/**
 * Events of calendars: reading them (event-reads.ts), busy time (free-busy.ts), writing them
 * (event-writes.ts) under the rules every event meets (event-rules.ts). This file wires them
 * and is the module's surface.
 */
export interface EventService {
  /**
   * The events calendar sync mirrors from a provider, read by the provider's ids and
   * written in bulk in the sync's own transaction (`executor`). The sync decides
   * what to write for the calendar it maps; no hook runs, as the sync reports and
   * pushes its own changes.
   */
  mirrored(executor?: Executor): SyncedEventRepo;

  /**
   * Occurrences overlapping [from, to) in a calendar the actor may read: recurring
   * events expanded in their own time zone, in start order. One query, expansion in memory.
   */
  listOccurrences(actor: Actor, calendarId: number, range: EventRange): Promise<EventOccurrence[]>;

  /** The event when the actor may read its calendar; 404 otherwise (never revealing it exists). */
  get(actor: Actor, eventId: number): Promise<Event>;

  /** The events mirroring these reservations in their resources' booking calendars (src/modules/booking-calendar). */
  mirrorsOf(reservationIds: readonly number[]): Promise<Array<Event & { reservationId: number }>>;

  /** Whether any event mirrors a reservation (none, and no booking calendar: the mirror has nothing to do). */
  anyMirror(): Promise<boolean>;

  /**
   * Every event of a calendar with an occurrence ending after `since`, without an actor:
   * for a subscription feed, whose secret URL its owner made is the credential.
   */
  listForFeed(calendarId: number, since: string): Promise<Event[]>;

  /**
   * Busy time of the actor's own calendars within [from, to): the given ones (each must be
   * the actor's and within an agent's calendar scope, else 404 naming none), or all of
   * them. Opaque events only (mirrors of bookings included: the person is busy), recurring
   * ones expanded in their zone, merged and clipped per calendar. Times only.
   */
  freeBusy(actor: Actor, query: FreeBusyQuery): Promise<FreeBusy>;

  /** Creates an event in a calendar the actor owns; the created hook, then the changed hook, run after. */
  create(actor: Actor, calendarId: number, input: EventInput, options?: EventWriteOptions): Promise<Event>;

  /** Changes the given fields; the merged event must satisfy every rule again. */
  update(actor: Actor, eventId: number, patch: EventPatch, options?: EventWriteOptions): Promise<Event>;

  /** Deletes an event of a calendar the actor owns. */
  delete(actor: Actor, eventId: number): Promise<void>;

  /** For external calendar sync: the event of an own calendar with this provider id, if any. */
  findByExternalId(
    actor: Actor,
    calendarId: number,
    provider: string,
    externalId: string,
  ): Promise<Event | undefined>;
}

export function createEventService(deps: EventServiceDeps): EventService {
  const { db } = deps;
  const context: EventContext = { ...deps, repo: createEventRepo(db.kysely) };
  const { repo } = context;
  return {
    mirrored: (executor = db.kysely) => createSyncedEventRepo(executor),
    listOccurrences: (actor, calendarId, range) => listOccurrences(context, actor, calendarId, range),
    get: (actor, eventId) => eventWith(context, 'requireReadable', actor, eventId),
    mirrorsOf: (reservationIds) => repo.mirrorsOf(reservationIds),
    anyMirror: () => repo.anyMirror(),
    listForFeed: (calendarId, since) => repo.listSince(calendarId, since),
    freeBusy: (actor, query) => freeBusy(context, actor, query),
    create: (actor, calendarId, input, options) => createEvent(context, actor, calendarId, input, options),
    update: (actor, eventId, patch, options) => updateEvent(context, actor, eventId, patch, options),
    delete: (actor, eventId) => deleteEvent(context, actor, eventId),
    findByExternalId: (actor, calendarId, provider, externalId) =>
      findByExternalId(context, actor, calendarId, provider, externalId),
  };
}
