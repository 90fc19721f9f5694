import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * Signed webhooks (issue 24, DECISIONS.md "Events, webhooks and notifications"):
 *
 * - `webhook_endpoints`: an organisation's endpoints, the signing secret sealed with
 *   ENCRYPTION_KEY (it must be read back to sign), `failing_since` the first failure not
 *   followed by a success (3 days of it disable the endpoint).
 * - `webhook_dispatch_positions`: the last outbox event the dispatcher turned into
 *   deliveries (one row).
 * - `webhook_deliveries`: one per (endpoint, event), unique, with the exact body every
 *   attempt sends; `claimed_until` is the lease of the one attempt in flight.
 */
export function webhooks(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('webhook_endpoints'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('events', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('secret_sealed', 'text', (col) => col.notNull())
        .addColumn('failing_since', c.timestamp)
        .addColumn('disabled_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_organisation_idx')
        .on('webhook_endpoints')
        .columns(['organisation_id', 'id'])
        .execute();
      await db.schema
        .createTable('webhook_dispatch_positions')
        .addColumn('consumer', 'text', (col) => col.primaryKey())
        .addColumn('last_event_id', 'text')
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await c
        .withId(db.schema.createTable('webhook_deliveries'))
        .addColumn('endpoint_id', 'integer', (col) =>
          col.notNull().references('webhook_endpoints.id').onDelete('cascade'),
        )
        .addColumn('organisation_id', 'integer', (col) => col.notNull())
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('event_type', 'text', (col) => col.notNull())
        // The person the event concerns (privacy export and erasure), as the outbox has it.
        .addColumn('user_id', 'integer')
        .addColumn('payload', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('next_attempt_at', c.timestamp)
        .addColumn('retry_until', c.timestamp, (col) => col.notNull())
        .addColumn('claimed_until', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('webhook_deliveries_endpoint_event_key', ['endpoint_id', 'event_id'])
        .execute();
      // The workers' due read; the log's pages; export, erasure and the 30-day purge.
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_endpoint_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_user_idx')
        .on('webhook_deliveries')
        .column('user_id')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_created_at_idx')
        .on('webhook_deliveries')
        .column('created_at')
        .execute();
    },
  };
}
