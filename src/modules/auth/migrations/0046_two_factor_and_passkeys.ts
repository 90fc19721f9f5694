import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * Two-factor sign-in and passkeys (issue 48, DECISIONS.md "Accounts").
 *
 * - `users.two_factor_enabled`: read with the person on every request (the tenant gate's
 *   `requireTwoFactor` check needs it in the same statement).
 * - `two_factor_secrets`: the TOTP secret (sealed with ENCRYPTION_KEY), one waiting for its
 *   first code, and the last time-step accepted, so a code is taken once on every instance.
 * - `two_factor_recovery_codes`: SHA-256 of the codes shown once; each used once.
 * - `two_factor_challenges`: the second step of a login (SHA-256 of the token, 5 minutes).
 * - `passkeys`: WebAuthn credentials (public key, signature counter) of a person.
 * - `passkey_challenges`: the WebAuthn challenges handed out, single use, short-lived; a
 *   registration's is bound to its person.
 */
export function twoFactorAndPasskeys(dialect: Dialect) {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('two_factor_enabled', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .execute();
      await db.schema
        .createTable('two_factor_secrets')
        .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('secret_sealed', 'text')
        .addColumn('pending_secret_sealed', 'text')
        .addColumn('last_used_step', 'bigint')
        .addColumn('enabled_at', c.timestamp)
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await c
        .withId(db.schema.createTable('two_factor_recovery_codes'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (col) => col.notNull())
        .addColumn('used_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('two_factor_recovery_codes_user_idx')
        .on('two_factor_recovery_codes')
        .columns(['user_id', 'code_hash'])
        .execute();
      await c
        .withId(db.schema.createTable('two_factor_challenges'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('two_factor_challenges_user_idx')
        .on('two_factor_challenges')
        .column('user_id')
        .execute();
      await c
        .withId(db.schema.createTable('passkeys'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('credential_id', 'text', (col) => col.notNull().unique())
        .addColumn('public_key', 'text', (col) => col.notNull())
        .addColumn('counter', 'bigint', (col) => col.notNull())
        .addColumn('transports', 'text')
        .addColumn('name', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp)
        .execute();
      await db.schema.createIndex('passkeys_user_idx').on('passkeys').columns(['user_id', 'id']).execute();
      await c
        .withId(db.schema.createTable('passkey_challenges'))
        .addColumn('challenge', 'text', (col) => col.notNull().unique())
        .addColumn('purpose', 'text', (col) => col.notNull())
        .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('passkey_challenges_expires_idx')
        .on('passkey_challenges')
        .column('expires_at')
        .execute();
    },
  };
}
