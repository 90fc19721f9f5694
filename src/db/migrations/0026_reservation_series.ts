import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Recurring reservations (issue 23).
 *
 * - `reservation_series`: one row per series, its RFC 5545 lines (JSON text, as the
 *   request gave them) and its first occurrence; each occurrence is an ordinary
 *   reservation naming it in `reservations.series_id` (column of 0019). No personal data:
 *   the customer is on the occurrences.
 * - `reservations_series_idx`: a series' occurrences, read and cancelled together.
 * - A paid series has one checkout for its total, shared by its occurrences: the checkout
 *   index (0021) is no longer unique (a webhook finds every occurrence by it).
 * - Resource types: `waitlist_offer_minutes`, how long a waitlist offer holds freed time.
 */
export function reservationSeries(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('reservation_series'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('resource_type_id', 'integer', (col) => col.notNull())
        .addColumn('recurrence', 'text', (col) => col.notNull())
        .addColumn('start_time', c.timestamp, (col) => col.notNull())
        .addColumn('end_time', c.timestamp, (col) => col.notNull())
        .addColumn('created_by_user_id', 'integer')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('reservation_series_organisation_idx')
        .on('reservation_series')
        .column('organisation_id')
        .execute();
      await db.schema.createIndex('reservations_series_idx').on('reservations').column('series_id').execute();
      await db.schema.dropIndex('reservations_payment_checkout_idx').execute();
      await db.schema
        .createIndex('reservations_payment_checkout_idx')
        .on('reservations')
        .column('payment_checkout_id')
        .where(sql.ref('payment_checkout_id'), 'is not', null)
        .execute();
      await db.schema
        .alterTable('resource_types')
        .addColumn('waitlist_offer_minutes', 'integer', (col) => col.notNull().defaultTo(30))
        .execute();
    },
  };
}
