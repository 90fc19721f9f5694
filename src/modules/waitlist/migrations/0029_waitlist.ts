import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * The waitlist (issue 23, DECISIONS.md "Recurring reservations and the waitlist").
 *
 * - `waitlist_entries`: a customer waiting for a full time of a type (or of one of its
 *   resources); `status` waiting, offered, accepted, expired or left; while offered, the
 *   held reservation of the offer and when it lapses. A public entry keeps the SHA-256 of
 *   its manage token, which its offer's hold carries too.
 * - `waitlist_consumer`: where the offer consumer stands in the outbox, and its lease:
 *   one instance at a time reads on from there, so a freed time is offered once.
 */
export function waitlist(dialect: Dialect) {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('waitlist_entries'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('resource_type_id', 'integer', (col) => col.notNull())
        .addColumn('resource_id', 'integer')
        .addColumn('start_time', c.timestamp, (col) => col.notNull())
        .addColumn('end_time', c.timestamp, (col) => col.notNull())
        .addColumn('customer_name', 'text', (col) => col.notNull())
        .addColumn('customer_email', 'text', (col) => col.notNull())
        .addColumn('customer_phone', 'text')
        .addColumn('customer_info', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('notes', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('offer_reservation_id', 'integer')
        .addColumn('offer_expires_at', c.timestamp)
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('created_by_user_id', 'integer')
        .addColumn('manage_token_hash', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // What an offer looks for: the waiting entries of a type, oldest first.
      await db.schema
        .createIndex('waitlist_entries_type_status_idx')
        .on('waitlist_entries')
        .columns(['resource_type_id', 'status', 'id'])
        .execute();
      await db.schema
        .createIndex('waitlist_entries_offer_idx')
        .on('waitlist_entries')
        .column('offer_reservation_id')
        .where(sql.ref('offer_reservation_id'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('waitlist_entries_organisation_idx')
        .on('waitlist_entries')
        .columns(['organisation_id', 'id'])
        .execute();
      await db.schema
        .createTable('waitlist_consumer')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('position', 'text')
        .addColumn('claim', 'text')
        .addColumn('claimed_until', c.timestamp)
        .execute();
      await db
        .insertInto('waitlist_consumer' as never)
        .values({ name: 'offers' } as never)
        .execute();
    },
  };
}
