import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * Each agent's permissions also as one JSON text on its row (`agents.permissions_json`, written
 * with the rows by permissions-repo.ts `replacePermissions`): the credential read of every MCP
 * request takes it with the agent instead of aggregating the rows. On PostgreSQL the aggregate
 * of an agent's 35 permissions was about as much of the server's CPU as the rest of that read
 * (docs/decisions.md "An agent's permissions read as one column"). Filled here from the rows.
 */
export function agentPermissionsJson(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('agents')
        .addColumn('permissions_json', 'text', (column) => column.notNull().defaultTo('[]'))
        .execute();
      const pairs =
        dialect === 'postgres'
          ? sql`(select coalesce(json_agg(json_build_array(p.action_key, p.scope::json) order by p.id), '[]')::text
              from agent_permissions p where p.agent_id = agents.id)`
          : sql`(select json_group_array(json_array(p.action_key, json(p.scope)))
              from (select action_key, scope from agent_permissions where agent_id = agents.id order by id) p)`;
      await sql`update agents set permissions_json = ${pairs}`.execute(db);
    },
  };
}
