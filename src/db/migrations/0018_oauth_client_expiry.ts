import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Dynamically registered OAuth clients that complete no authorization within 24
 * hours are deleted, so anonymous registration cannot grow `oauth_clients` without
 * bound. `first_authorized_at` records the first approval a person gave the client;
 * the partial index serves the clean-up, which reads only the never-approved ones.
 * A client that already has an agent or a refresh token was approved before this
 * column existed: it counts as approved at its registration.
 */
export function oauthClientExpiry(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('oauth_clients').addColumn('first_authorized_at', c.timestamp).execute();
      await sql`
        update oauth_clients set first_authorized_at = created_at
        where client_id in (select oauth_client_id from agents where oauth_client_id is not null)
           or client_id in (select client_id from oauth_refresh_tokens)
      `.execute(db);
      await db.schema
        .createIndex('oauth_clients_unauthorized_created_idx')
        .on('oauth_clients')
        .column('created_at')
        .where(sql.ref('first_authorized_at'), 'is', null)
        .execute();
    },
  };
}
