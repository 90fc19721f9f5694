import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/**
 * MCP sessions of 2025-era clients (`mcp-session-id`). A session lives here, not in
 * process memory, so any app instance sharing the database serves it.
 */
export function mcp(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mcp_sessions')
        // Random, at least 128 bits (base64url text); the session id the client echoes.
        .addColumn('id', 'text', (col) => col.primaryKey())
        // No foreign key: the MCP layer knows agents only through the AgentDirectory.
        .addColumn('agent_id', 'integer', (col) => col.notNull())
        .addColumn('protocol_version', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp, (col) => col.notNull())
        .addColumn('ended_at', c.timestamp)
        .execute();
      // Ending every open session of an agent (disabled) and purging old rows.
      await db.schema
        .createIndex('mcp_sessions_agent_idx')
        .on('mcp_sessions')
        .columns(['agent_id', 'ended_at'])
        .execute();
      await db.schema
        .createIndex('mcp_sessions_last_used_idx')
        .on('mcp_sessions')
        .column('last_used_at')
        .execute();
    },
  };
}
