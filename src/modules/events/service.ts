import { DateTime } from 'luxon';
import type { Db, Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, invalidField, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import type { CalendarService } from '../calendars/service.js';
import { type BusySpan, busySpans } from './busy.js';
import {
  type CompiledRecurrence,
  compileRecurrence,
  OccurrenceLimitError,
  occurrencesBetween,
  RecurrenceError,
  seriesEnd,
} from './recurrence.js';
import { createEventRepo, createSyncedEventRepo } from './repo.js';
import {
  type Event,
  type EventInput,
  type EventOccurrence,
  type EventPatch,
  type EventRange,
  type EventValues,
  type ExternalRef,
  type FreeBusy,
  type FreeBusyQuery,
  instant,
  REMINDER_MAX_MINUTES,
  type Reminder,
  type Transparency,
} from './schemas.js';

/** Longest range one free/busy question may cover. */
export const MAX_FREE_BUSY_DAYS = 62;
/** Longest range one event listing may cover. */
export const MAX_RANGE_DAYS = 366;
/** Most occurrences one event listing answers; a denser range must be asked for in parts. */
export const MAX_OCCURRENCES = 10_000;

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

const invalid = (path: string, message: string) =>
  validationFailed(`Invalid event: ${path}: ${message}`, [{ path, message }]);

/** Epoch milliseconds of an ISO 8601 date-time with Z or an offset (the same rule as the HTTP schemas). */
function toMillis(value: string, path: string): number {
  if (!instant.safeParse(value).success)
    throw invalid(path, 'must be an ISO 8601 date-time with Z or an offset');
  return Date.parse(value);
}

const toInstant = (value: string, path: string) => new Date(toMillis(value, path)).toISOString();

function isLocalMidnight(iso: string, zone: string): boolean {
  const local = DateTime.fromISO(iso, { zone });
  return local.hour === 0 && local.minute === 0 && local.second === 0 && local.millisecond === 0;
}

/** Spans in start order, overlapping and touching ones joined, clipped to [from, to). */
function mergeSpans(spans: BusySpan[], from: number, to: number): BusySpan[] {
  const merged: BusySpan[] = [];
  for (const span of spans.sort((a, b) => a.start - b.start)) {
    const start = Math.max(span.start, from);
    const end = Math.min(span.end, to);
    if (end <= start) continue;
    const last = merged[merged.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else merged.push({ start, end });
  }
  return merged;
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

function externalClash(error: unknown): never {
  if (isUniqueViolation(error))
    throw conflict('CONFLICT', 'This calendar already has an event with that external id');
  throw error;
}

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

export type EventService = ReturnType<typeof createEventService>;

/**
 * A stored rule that no longer compiles (written before a rule was tightened, or
 * behind the API's back) shows the event once, as its first occurrence, rather
 * than failing the whole calendar.
 */
function storedRecurrence(
  event: Parameters<typeof compileRecurrence>[1] & { recurrence: Parameters<typeof compileRecurrence>[0] },
) {
  try {
    return compileRecurrence(event.recurrence, event);
  } catch (error) {
    if (error instanceof RecurrenceError) return null;
    throw error;
  }
}

export function createEventService({
  db,
  calendars,
  onEventCreated,
  onEventChanged,
}: {
  db: Db;
  calendars: CalendarService;
  onEventCreated?: EventCreatedHook;
  onEventChanged?: EventChangedHook;
}) {
  const repo = createEventRepo(db.kysely);

  async function changed(actor: Actor, type: 'created' | 'updated' | 'deleted', event: Event) {
    if (!onEventChanged) return;
    try {
      await onEventChanged(actor, { type, event });
    } catch {
      // The listener records its own failures; the write stays done.
    }
  }

  /** The event when the actor may read its calendar; 404 otherwise (never revealing it exists). */
  async function readable(actor: Actor, eventId: number): Promise<Event> {
    const event = await repo.findById(eventId);
    if (!event) throw notFound('Event');
    await calendars.requireReadable(actor, event.calendarId, 'Event');
    return event;
  }

  /** The event when the actor owns its calendar: 404 when unseen, 403 when only shared with them. */
  async function writable(actor: Actor, eventId: number): Promise<Event> {
    const event = await repo.findById(eventId);
    if (!event) throw notFound('Event');
    await calendars.requireOwned(actor, event.calendarId, 'Event');
    return event;
  }

  return {
    /**
     * The events calendar sync mirrors from a provider, read by the provider's ids and
     * written in bulk in the sync's own transaction (`executor`). The sync decides
     * what to write for the calendar it maps; no hook runs, as the sync reports and
     * pushes its own changes.
     */
    mirrored(executor: Executor = db.kysely) {
      return createSyncedEventRepo(executor);
    },

    /**
     * Occurrences overlapping [from, to) in a calendar the actor may read: recurring
     * events expanded in their own time zone, in start order. One query, expansion in memory.
     */
    async listOccurrences(actor: Actor, calendarId: number, range: EventRange): Promise<EventOccurrence[]> {
      await calendars.requireReadable(actor, calendarId);
      const from = toMillis(range.from, 'from');
      const to = toMillis(range.to, 'to');
      if (to <= from) throw invalid('to', 'must be after from');
      if (to - from > MAX_RANGE_DAYS * 86_400_000)
        throw invalid('to', `the range may cover at most ${MAX_RANGE_DAYS} days`);

      const events = await repo.listOverlapping(
        calendarId,
        new Date(from).toISOString(),
        new Date(to).toISOString(),
      );
      const occurrences: EventOccurrence[] = [];
      try {
        for (const event of events) {
          const compiled = storedRecurrence(event);
          const found = occurrencesBetween(event, compiled, from, to, MAX_OCCURRENCES - occurrences.length);
          const { id, recurrence: _recurrence, createdAt: _c, updatedAt: _u, ...shared } = event;
          for (const { start, end } of found) {
            occurrences.push({
              ...shared,
              eventId: id,
              startTime: start,
              endTime: end,
              isRecurring: !!compiled,
            });
          }
        }
      } catch (error) {
        if (error instanceof OccurrenceLimitError)
          throw invalid(
            'to',
            `the range holds more than ${MAX_OCCURRENCES} occurrences; ask for a shorter one`,
          );
        throw error;
      }
      return occurrences.sort((a, b) =>
        a.startTime < b.startTime ? -1 : a.startTime > b.startTime ? 1 : a.eventId - b.eventId,
      );
    },

    get(actor: Actor, eventId: number): Promise<Event> {
      return readable(actor, eventId);
    },

    /** The events mirroring these reservations in their resources' booking calendars (src/modules/booking-calendar). */
    mirrorsOf(reservationIds: readonly number[]) {
      return repo.mirrorsOf(reservationIds);
    },

    /** Whether any event mirrors a reservation (none, and no booking calendar: the mirror has nothing to do). */
    anyMirror(): Promise<boolean> {
      return repo.anyMirror();
    },

    /**
     * Every event of a calendar with an occurrence ending after `since`, without an actor:
     * for a subscription feed, whose secret URL its owner made is the credential.
     */
    listForFeed(calendarId: number, since: string): Promise<Event[]> {
      return repo.listSince(calendarId, since);
    },

    /**
     * Busy time of the actor's own calendars within [from, to): the given ones (each must be
     * the actor's and within an agent's calendar scope, else 404 naming none), or all of
     * them. Opaque events only (mirrors of bookings included: the person is busy), recurring
     * ones expanded in their zone, merged and clipped per calendar. Times only.
     */
    async freeBusy(actor: Actor, query: FreeBusyQuery): Promise<FreeBusy> {
      const from = Date.parse(query.from);
      const to = Date.parse(query.to);
      if (!(to > from)) throw invalidField('to', 'must be after from');
      if (to - from > MAX_FREE_BUSY_DAYS * 86_400_000)
        throw invalidField('to', `the range may cover at most ${MAX_FREE_BUSY_DAYS} days`);
      const owned = query.calendarIds
        ? await calendars.requireOwnedMany(actor, query.calendarIds)
        : (await calendars.list(actor)).filter((calendar) => calendar.accessRole === 'owner');
      const ids = query.calendarIds ? [...new Set(query.calendarIds)] : owned.map((calendar) => calendar.id);
      const rows = await repo.listBusy(ids, new Date(from).toISOString(), new Date(to).toISOString());
      const byCalendar = new Map<number, typeof rows>(ids.map((id) => [id, []]));
      for (const row of rows) byCalendar.get(row.calendarId)?.push(row);
      return {
        calendars: ids.map((calendarId) => ({
          calendarId,
          busy: mergeSpans(busySpans(byCalendar.get(calendarId) ?? [], from, to), from, to).map((span) => ({
            start: new Date(span.start).toISOString(),
            end: new Date(span.end).toISOString(),
          })),
        })),
      };
    },

    async create(
      actor: Actor,
      calendarId: number,
      input: EventInput,
      options: EventWriteOptions = {},
    ): Promise<Event> {
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
      await changed(actor, 'created', created);
      return created;
    },

    /** Changes the given fields; the merged event must satisfy every rule again. */
    async update(
      actor: Actor,
      eventId: number,
      patch: EventPatch,
      options: EventWriteOptions = {},
    ): Promise<Event> {
      const event = await writable(actor, eventId);
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
      await changed(actor, 'updated', updated);
      return updated;
    },

    async delete(actor: Actor, eventId: number): Promise<void> {
      const event = await writable(actor, eventId);
      await repo.delete(eventId);
      await changed(actor, 'deleted', event);
    },

    /** For external calendar sync: the event of an own calendar with this provider id, if any. */
    async findByExternalId(
      actor: Actor,
      calendarId: number,
      provider: string,
      externalId: string,
    ): Promise<Event | undefined> {
      await calendars.requireOwned(actor, calendarId);
      return repo.findByExternalId(calendarId, provider, externalId);
    },
  };
}
