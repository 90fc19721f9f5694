import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A resource type's reminders (DECISIONS.md "Booking everywhere"): a JSON array of up to 3
 * `{minutesBefore}`, '[]' for none. The reminder sweep (reservations/reminders.ts) reads the
 * types that have any every minute: a partial index keeps that read to those few rows.
 */
export function typeReminders(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('resource_types')
        .addColumn('reminders', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .createIndex('resource_types_with_reminders_idx')
        .on('resource_types')
        .column('id')
        .where(sql.ref('reminders'), '<>', '[]')
        .execute();
    },
  };
}
