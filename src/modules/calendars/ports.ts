import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read of the calendars table, as query fragments they
 * compose into their own statements (so a read stays one statement and the table stays here).
 */

/** Every calendar's id, name and owner, to join to the calendar ids another module holds. */
export function calendarNames(db: Executor) {
  return db.selectFrom('calendars').select(['calendars.id', 'calendars.name', 'calendars.ownerId']);
}

/** The ids of the calendars `ownerId` owns. */
export function ownedCalendarIds(db: Executor, ownerId: number) {
  return db.selectFrom('calendars').select('calendars.id').where('calendars.ownerId', '=', ownerId);
}
