import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * Mail from the outbox (issue 24): the consumer's position, one claim row per mail (its
 * dedupe key unique: each mail sent once), and the calendar invitations sent, with
 * their SEQUENCE. No foreign keys: event ids live in the outbox (kept 30 days), and a
 * reservation's invitation row outlives nothing that matters if the reservation goes.
 */
export function mailMigration(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mail_consumer_positions')
        .addColumn('consumer', 'text', (col) => col.primaryKey())
        .addColumn('last_event_id', 'text', (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await c
        .withId(db.schema.createTable('mail_messages'))
        .addColumn('dedupe_key', 'text', (col) => col.notNull().unique())
        .addColumn('event_id', 'text')
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('organisation_id', 'integer')
        .addColumn('recipient', 'text', (col) => col.notNull())
        .addColumn('subject', 'text', (col) => col.notNull())
        .addColumn('message_id', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('claimed_at', c.timestamp)
        .addColumn('sent_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Export and erasure by address; the 30-day purge by age.
      await db.schema
        .createIndex('mail_messages_recipient_idx')
        .on('mail_messages')
        .columns(['recipient', 'id'])
        .execute();
      await db.schema
        .createIndex('mail_messages_created_at_idx')
        .on('mail_messages')
        .column('created_at')
        .execute();
      await db.schema
        .createTable('mail_calendar_invitations')
        .addColumn('reservation_id', 'integer', (col) => col.primaryKey())
        .addColumn('sequence', 'integer', (col) => col.notNull())
        .addColumn('last_reschedule_event_id', 'text')
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
    },
  };
}
