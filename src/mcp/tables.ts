import type { ColumnType } from 'kysely';
import type { Timestamp } from '../db/column-types.js';

/**
 * A 2025-era MCP session: created by `initialize`, bound to one agent, ended by
 * DELETE, by the agent being disabled, or after 24 hours without use.
 */
export interface McpSessionsTable {
  /** Random (>= 128 bits), base64url; the `mcp-session-id` header value. */
  id: string;
  agentId: number;
  /** The protocol version negotiated by `initialize`. */
  protocolVersion: string;
  createdAt: Timestamp;
  lastUsedAt: Timestamp;
  endedAt: Timestamp | null;
  /** The client declared URL-mode elicitation at `initialize` (asked through it for approvals). */
  urlElicitation: ColumnType<boolean | number, boolean | undefined, boolean>;
}

/** The MCP runtime's own table (declared into Database by sessions.ts, which alone reads and writes it). */
export interface McpTables {
  mcpSessions: McpSessionsTable;
}
