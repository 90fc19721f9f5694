import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

export function foundation(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('users'))
        .addColumn('email', 'text', (col) => col.notNull().unique())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('password_hash', 'text', (col) => col.notNull())
        .addColumn('plan', 'text', (col) => col.notNull().defaultTo('STORE'))
        .addColumn('is_global_admin', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('active_organisation_id', 'integer')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();

      await c
        .withId(db.schema.createTable('login_sessions'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('family_id', 'text', (col) => col.notNull())
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('revoked_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('login_sessions_family_idx')
        .on('login_sessions')
        .column('family_id')
        .execute();
      await db.schema.createIndex('login_sessions_user_idx').on('login_sessions').column('user_id').execute();

      await c
        .withId(db.schema.createTable('api_keys'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('label', 'text', (col) => col.notNull())
        .addColumn('prefix', 'text', (col) => col.notNull())
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp)
        .addColumn('revoked_at', c.timestamp)
        .execute();
      await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();

      await c
        .withId(db.schema.createTable('frontend_errors'))
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('message', 'text', (col) => col.notNull())
        .addColumn('stack', 'text')
        .addColumn('url', 'text')
        .addColumn('severity', 'text', (col) => col.notNull())
        .addColumn('details', 'text')
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();

      await c
        .withId(db.schema.createTable('security_reports'))
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('body', 'text', (col) => col.notNull())
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();

      await c
        .withId(db.schema.createTable('honeypot_hits'))
        .addColumn('ip', 'text', (col) => col.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('path', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
    },
  };
}
