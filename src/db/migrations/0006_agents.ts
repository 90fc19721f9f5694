import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/** Agents: profiles, permissions, static keys, tool-call activity, OAuth refresh tokens. */
export function agents(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('agents'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('permission_group_id', 'text')
        .addColumn('oauth_client_id', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp)
        // Approving the same client again reuses its agent; NULLs (agents made by hand) never clash.
        .addUniqueConstraint('agents_user_oauth_client_key', ['user_id', 'oauth_client_id'])
        .execute();
      // The owner's list, in id order.
      await db.schema.createIndex('agents_user_idx').on('agents').columns(['user_id', 'id']).execute();

      await c
        .withId(db.schema.createTable('agent_permissions'))
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('action_key', 'text', (col) => col.notNull())
        .addColumn('scope', 'text')
        // Also the lookup of an agent's permissions.
        .addUniqueConstraint('agent_permissions_agent_action_key', ['agent_id', 'action_key'])
        .execute();

      await c
        .withId(db.schema.createTable('agent_keys'))
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('label', 'text', (col) => col.notNull())
        .addColumn('prefix', 'text', (col) => col.notNull())
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp)
        .addColumn('revoked_at', c.timestamp)
        .execute();
      await db.schema
        .createIndex('agent_keys_agent_idx')
        .on('agent_keys')
        .columns(['agent_id', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('agent_activity'))
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('action_key', 'text', (col) => col.notNull())
        .addColumn('outcome', 'text', (col) => col.notNull())
        .addColumn('error_code', 'text')
        .addColumn('duration_ms', 'integer', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The activity page: one agent's calls, newest first by id.
      await db.schema
        .createIndex('agent_activity_agent_idx')
        .on('agent_activity')
        .columns(['agent_id', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('oauth_refresh_tokens'))
        .addColumn('client_id', 'text', (col) => col.notNull())
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('family_id', 'text', (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('revoked_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Revoking every token of an agent (DELETE), and of one (agent, client) pair (reuse of a rotated token).
      await db.schema
        .createIndex('oauth_refresh_tokens_agent_client_idx')
        .on('oauth_refresh_tokens')
        .columns(['agent_id', 'client_id'])
        .execute();
      await db.schema
        .createIndex('oauth_refresh_tokens_family_idx')
        .on('oauth_refresh_tokens')
        .column('family_id')
        .execute();
    },
  };
}
