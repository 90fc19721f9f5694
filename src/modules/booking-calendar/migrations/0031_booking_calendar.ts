import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * The booking calendar mirror's place in the outbox (issue 26): the last outbox event it
 * applied (one row). Which event mirrors which reservation is `events.booking_reservation_id`
 * (core migration 0027), unique, so no reservation is ever mirrored twice.
 */
export function bookingCalendar(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('booking_calendar_positions')
        .addColumn('consumer', 'text', (col) => col.primaryKey())
        .addColumn('last_event_id', 'text')
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
    },
  };
}
