import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Payment to confirmation (issue 22).
 *
 * - Reservations: the payment of a paid booking, set once its checkout exists: status
 *   (`requires_payment`, `paid`, `refunded`, `failed`, `expired`), amount (minor units) and
 *   currency, the provider's checkout (id, hosted URL, expiry) on the connected account it
 *   was made for, and the payment and refund ids the provider reports. Null on every other
 *   reservation. None of these columns is read by the availability triggers: a payment
 *   changes availability only through `status`, which they already watch.
 * - A unique index on the checkout id: a webhook finds its reservation by it, and one
 *   checkout never pays two reservations.
 * - Resource types: `payment_window_minutes`, how long a paid booking waits for its money.
 * - `payment_events`: the provider event ids already received, so a redelivered (or
 *   replayed) event changes nothing; indexed by time for pruning.
 */
export function reservationPayments(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const columns: Array<[string, 'text' | 'integer' | typeof c.timestamp]> = [
        ['payment_status', 'text'],
        ['payment_amount', 'integer'],
        ['payment_currency', 'text'],
        ['payment_account_id', 'text'],
        ['payment_checkout_id', 'text'],
        ['payment_checkout_url', 'text'],
        ['payment_expires_at', c.timestamp],
        ['payment_id', 'text'],
        ['payment_refund_id', 'text'],
      ];
      for (const [name, type] of columns)
        await db.schema.alterTable('reservations').addColumn(name, type).execute();
      await db.schema
        .createIndex('reservations_payment_checkout_idx')
        .on('reservations')
        .column('payment_checkout_id')
        .unique()
        // Only rows that have one: most have none, and a booking then writes one index less.
        .where(sql.ref('payment_checkout_id'), 'is not', null)
        .execute();
      await db.schema
        .alterTable('resource_types')
        .addColumn('payment_window_minutes', 'integer', (col) => col.notNull().defaultTo(30))
        .execute();
      await db.schema
        .createTable('payment_events')
        .addColumn('event_id', 'text', (col) => col.primaryKey())
        .addColumn('event_type', 'text', (col) => col.notNull())
        .addColumn('account_id', 'text')
        .addColumn('received_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('payment_events_received_idx')
        .on('payment_events')
        .column('received_at')
        .execute();
    },
  };
}
