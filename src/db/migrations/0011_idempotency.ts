import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Idempotency keys: one row per (scope, key) a client sent with a booking, holding the
 * fingerprint of the request and, once it finished, the answer to replay for 24 hours.
 */
export function idempotency(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('idempotency_keys'))
        // `user:<id>` for signed-in callers, `ip:<address>` for the public routes.
        .addColumn('scope', 'text', (col) => col.notNull())
        .addColumn('key', 'text', (col) => col.notNull())
        // The signed-in caller (null on public routes): the person's rows for export and erasure.
        .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (col) => col.notNull())
        // Null while the first request runs.
        .addColumn('status_code', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('completed_at', c.timestamp)
        // The claim: one INSERT, and the second caller with the same key hits this.
        .addUniqueConstraint('idempotency_keys_scope_key_unique', ['scope', 'key'])
        .execute();
      // The purge of rows older than 24 hours.
      await db.schema
        .createIndex('idempotency_keys_created_at_idx')
        .on('idempotency_keys')
        .column('created_at')
        .execute();
      await db.schema
        .createIndex('idempotency_keys_user_idx')
        .on('idempotency_keys')
        .columns(['user_id', 'id'])
        .execute();
    },
  };
}
