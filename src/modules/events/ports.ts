import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { ownedCalendarIds } from '../calendars/ports.js';

/**
 * What other modules read of the events table, each a query to compose into theirs (as a
 * subquery: `.as(...)`), so their read stays one statement.
 */

/**
 * The events that take their calendar's time: opaque ones, mirrors of reservations left out
 * (the reservation takes its time). Only when they take it, never what they are.
 */
export function eventsTakingTime(db: Executor) {
  return (
    db
      .selectFrom('events')
      .select([
        'events.calendarId',
        'events.startTime',
        'events.endTime',
        'events.allDay',
        'events.timezone',
        'events.recurrence',
        'events.occursUntil',
      ])
      // A literal, as the partial indexes spell it: with a parameter SQLite cannot tell the index
      // holds only opaque events and reads every event's row to check (3.3 ms against 1.5 for
      // 10,000 events).
      .where('events.transparency', '=', sql.lit('opaque'))
      .where('events.bookingReservationId', 'is', null)
  );
}

/** The ids of the events in these calendars. */
export function eventIdsInCalendars(db: Executor, calendarIds: readonly number[]) {
  return db.selectFrom('events').select('events.id').where('events.calendarId', 'in', calendarIds);
}

/** The ids of the events in the calendars `ownerId` owns. */
export function ownedEventIds(db: Executor, ownerId: number) {
  return db
    .selectFrom('events')
    .select('events.id')
    .where('events.calendarId', 'in', ownedCalendarIds(db, ownerId));
}
