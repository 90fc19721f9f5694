import type { Executor } from '../../db/database.js';
import { ownedCalendarIds } from '../calendars/ports.js';

/**
 * Read ports: what other modules may read of the events table, as query fragments they
 * compose into their own statements (so a read stays one statement and the table stays here).
 */

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
