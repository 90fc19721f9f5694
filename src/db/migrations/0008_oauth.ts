import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/**
 * The OAuth 2.1 authorization server: registered clients, authorization codes,
 * and the consented scope on the agents module's refresh tokens.
 */
export function oauth(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('oauth_clients')
        .addColumn('client_id', 'text', (col) => col.primaryKey())
        .addColumn('client_name', 'text', (col) => col.notNull())
        .addColumn('client_description', 'text')
        .addColumn('logo_url', 'text')
        .addColumn('homepage_url', 'text')
        .addColumn('redirect_uris', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();

      await c
        .withId(db.schema.createTable('oauth_authorization_codes'))
        .addColumn('code_hash', 'text', (col) => col.notNull().unique())
        // No foreign key: a Client ID Metadata Document client has no row in oauth_clients.
        .addColumn('client_id', 'text', (col) => col.notNull())
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('redirect_uri', 'text', (col) => col.notNull())
        .addColumn('code_challenge', 'text', (col) => col.notNull())
        .addColumn('resource', 'text')
        .addColumn('scope', 'text', (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('consumed_at', c.timestamp)
        .addColumn('issued_family_id', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Purging codes long past their expiry.
      await db.schema
        .createIndex('oauth_authorization_codes_expires_idx')
        .on('oauth_authorization_codes')
        .column('expires_at')
        .execute();

      await db.schema.alterTable('oauth_refresh_tokens').addColumn('scope', 'text').execute();
      // Purging refresh tokens long past their expiry.
      await db.schema
        .createIndex('oauth_refresh_tokens_expires_idx')
        .on('oauth_refresh_tokens')
        .column('expires_at')
        .execute();
    },
  };
}
