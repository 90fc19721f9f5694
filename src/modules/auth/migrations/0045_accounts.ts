import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * Accounts people can trust (DECISIONS.md "Accounts"):
 * - `users.email_verified`: false for new accounts; every existing account is verified.
 * - `auth_sessions`: one row a sign-in; `login_sessions.auth_session_id` ties each refresh
 *   token to it (null for families started before sessions existed: their next refresh
 *   starts one).
 * - `account_links`: mailed links (verify, change email, reset password), hashed.
 */
export function accounts(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('email_verified', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .execute();
      await sql`update users set email_verified = ${sql.lit(true)}`.execute(db);

      await c
        .withId(db.schema.createTable('auth_sessions'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('user_agent', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('revoked_at', c.timestamp)
        .execute();
      await db.schema
        .createIndex('auth_sessions_user_idx')
        .on('auth_sessions')
        .columns(['user_id', 'id'])
        .execute();

      await db.schema.alterTable('login_sessions').addColumn('auth_session_id', 'integer').execute();
      await db.schema
        .createIndex('login_sessions_auth_session_idx')
        .on('login_sessions')
        .column('auth_session_id')
        .where(sql.ref('auth_session_id'), 'is not', null)
        .execute();

      await c
        .withId(db.schema.createTable('account_links'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('purpose', 'text', (col) => col.notNull())
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('used_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // "Only the newest works": the newest link of a user and purpose is one probe.
      await db.schema
        .createIndex('account_links_user_purpose_idx')
        .on('account_links')
        .columns(['user_id', 'purpose', 'id'])
        .execute();
    },
  };
}
