import type { Executor } from '../../db/database.js';

/**
 * What other modules read of the calendars table, each a query to compose into theirs (as a
 * subquery: `.as(...)`), so their read stays one statement.
 */

/** Every calendar's owner. */
export const calendarOwners = (db: Executor) =>
  db.selectFrom('calendars').select(['calendars.id', 'calendars.ownerId']);
