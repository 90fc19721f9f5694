import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { personActor } from '../../lib/actor.js';
import { coalescing } from '../../lib/coalescing.js';
import { nowIso } from '../../lib/time.js';
import type { CalendarService } from '../calendars/service.js';
import type { EventService } from '../events/service.js';
import type { OutboxConsumerPort } from '../outbox/service.js';
import { createBookingCalendarRepo, type MirroredReservation } from './repo.js';

/** The job that applies new reservation events to booking calendars. */
export const BOOKING_CALENDAR_JOB = 'booking-calendar.mirror';
/** Outbox events one run reads. */
const BATCH = 200;

export type BookingCalendarService = ReturnType<typeof createBookingCalendarService>;

const titleOf = (r: MirroredReservation) => `Booking #${r.id}: ${r.resourceName}`;

/**
 * Bookings on the manager's calendar (issue 26): each confirmed reservation of a resource
 * with a `bookingCalendarId` is mirrored there as an event, moved when it is rescheduled
 * and removed when it is cancelled or expires (or stops being confirmed), through the
 * events service so two-way calendar sync pushes it to the provider.
 *
 * It consumes the outbox from a stored position and applies the reservations' state as
 * it is now, not as an event said: applying is idempotent (the mirror of a reservation is
 * unique, `events.booking_reservation_id`), so a run that crashes is simply run again and
 * two instances applying one batch end in the same place. The position moves after the
 * batch is applied (compare and set). Mirrors carry no customer data: the provider is
 * another company's system, and an erased customer must not stay there.
 */
export function createBookingCalendarService(deps: {
  db: Db;
  log?: FastifyBaseLogger;
  outbox: OutboxConsumerPort;
  events: EventService;
  calendars: Pick<CalendarService, 'findForFeed'>;
}) {
  const { db, log, outbox, events, calendars } = deps;
  const repo = createBookingCalendarRepo(db);

  async function ownerOf(calendarId: number): Promise<number | undefined> {
    return (await calendars.findForFeed(calendarId))?.ownerId;
  }

  async function removeMirror(mirror: { id: number; calendarId: number }) {
    const owner = await ownerOf(mirror.calendarId);
    if (owner !== undefined) await events.delete(personActor(owner), mirror.id).catch(ignoreGone);
  }

  /** Brings the mirrors of these reservations to their state now. */
  async function apply(ids: number[]): Promise<number> {
    const current = new Map((await repo.reservations(ids)).map((r) => [r.id, r]));
    const mirrors = new Map((await events.mirrorsOf(ids)).map((m) => [m.reservationId, m]));
    let applied = 0;
    for (const id of ids) {
      const r = current.get(id);
      const mirror = mirrors.get(id);
      const target =
        r && r.status === 'confirmed' && r.bookingCalendarId !== null && r.managedById !== null
          ? r
          : undefined;
      try {
        if (!target) {
          if (mirror) {
            await removeMirror(mirror);
            applied += 1;
          }
          continue;
        }
        const manager = personActor(target.managedById!);
        const fields = { title: titleOf(target), startTime: target.startTime, endTime: target.endTime };
        if (
          mirror &&
          mirror.calendarId !== target.bookingCalendarId &&
          (await ownerOf(mirror.calendarId)) !== target.managedById
        ) {
          // The booking calendar is now another person's: theirs gets the mirror, the old one loses it.
          await removeMirror(mirror);
          mirrors.delete(id);
        }
        const existing = mirrors.get(id);
        if (!existing) {
          try {
            await events.create(manager, target.bookingCalendarId!, fields, { bookingReservationId: id });
          } catch (error) {
            // Another run mirrored it meanwhile: bring that one up to date instead.
            // (The events service words a unique clash as 409 CONFLICT.)
            if (!isUniqueViolation(error) && (error as { code?: unknown }).code !== 'CONFLICT') throw error;
            const [raced] = await events.mirrorsOf([id]);
            if (raced)
              await events.update(manager, raced.id, { ...fields, calendarId: target.bookingCalendarId! });
          }
          applied += 1;
        } else if (
          existing.calendarId !== target.bookingCalendarId ||
          Date.parse(existing.startTime) !== Date.parse(target.startTime) ||
          Date.parse(existing.endTime) !== Date.parse(target.endTime) ||
          existing.title !== fields.title
        ) {
          await events.update(manager, existing.id, { ...fields, calendarId: target.bookingCalendarId! });
          applied += 1;
        }
      } catch (error) {
        // One reservation that cannot be mirrored (its calendar just deleted) holds up no other.
        log?.warn({ err: error, reservationId: id }, 'booking calendar: a reservation could not be mirrored');
      }
    }
    return applied;
  }

  async function mirrorOnce(): Promise<{ events: number; applied: number; more: boolean }> {
    const now = nowIso();
    const position = await repo.readPosition(now);
    // No booking calendar and no mirror anywhere: no event can change a mirror. Skip them unread.
    const last = await outbox.lastPosition();
    if (!(await repo.anyBookingCalendar()) && !(await events.anyMirror())) {
      if (last !== null && last !== position) await repo.advancePosition(db.kysely, position, last, now);
      return { events: 0, applied: 0, more: false };
    }
    const batch = await outbox.readAfter(position, BATCH);
    if (batch.length === 0) return { events: 0, applied: 0, more: false };
    const ids = [
      ...new Set(
        batch.flatMap((event) => {
          if (!event.type.startsWith('reservation.')) return [];
          const id = (event.data as { id?: unknown } | null)?.id;
          return typeof id === 'number' ? [id] : [];
        }),
      ),
    ];
    const applied = await apply(ids);
    const moved = await repo.advancePosition(db.kysely, position, batch[batch.length - 1]!.id, now);
    return { events: batch.length, applied, more: moved && batch.length === BATCH };
  }

  /** Applies every outbox event after the position; answers how many mirrors it wrote or removed. */
  const mirror = coalescing(async (): Promise<number> => {
    let applied = 0;
    for (;;) {
      const round = await mirrorOnce();
      applied += round.applied;
      if (!round.more) return applied;
    }
  });

  outbox.onNewEvents('booking-calendar', mirror, {
    idle: async () => !(await repo.anyBookingCalendar()) && !(await events.anyMirror()),
  });

  return { mirror };
}

/** A mirror already gone (deleted by its owner, or by another run) is what was wanted. */
function ignoreGone(error: unknown): void {
  if (error instanceof Error && 'code' in error && (error as { code: unknown }).code === 'NOT_FOUND') return;
  throw error;
}
