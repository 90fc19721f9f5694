import type { Executor } from '../../db/database.js';

/**
 * What other modules read of the calendars table, each a query to compose into theirs (as a
 * subquery: `.as(...)`), so their read stays one statement.
 */

/** Every calendar's id, name and owner, to join to the calendar ids another module holds (its owner's busy time, a group's shared calendars). */
export function calendarNames(db: Executor) {
  return db.selectFrom('calendars').select(['calendars.id', 'calendars.name', 'calendars.ownerId']);
}

/** The ids of the calendars `ownerId` owns. */
export function ownedCalendarIds(db: Executor, ownerId: number) {
  return db.selectFrom('calendars').select('calendars.id').where('calendars.ownerId', '=', ownerId);
}
