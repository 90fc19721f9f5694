import { type Kysely, type Migration, sql } from 'kysely';
import type { Columns } from './columns.js';

/**
 * `mcp_sessions.url_elicitation`: whether the session's client declared URL-mode elicitation
 * at `initialize` (issue 25). Kept with the session, so any instance serving a later request of
 * it knows, and the per-request session check reads it back in the same statement.
 */
export function mcpSessionCapabilities(c: Columns): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('mcp_sessions')
        .addColumn('url_elicitation', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .execute();
    },
  };
}
