import { sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import type { AccessScope } from '../../lib/actor.js';

export interface StoredPermission {
  actionKey: string;
  /** null: unrestricted within the owner's rights. */
  scope: AccessScope | null;
}

function parseScope(text: string | null): AccessScope | null {
  return text === null ? null : (JSON.parse(text) as AccessScope);
}

/** The permissions `permissionsJson` read. */
export function parsePermissions(json: string): StoredPermission[] {
  const pairs = JSON.parse(json) as Array<[string, string | null]>;
  return pairs.map(([actionKey, scope]) => ({ actionKey, scope: parseScope(scope) }));
}

/**
 * An agent's permissions as one JSON text of `[actionKey, scope]` pairs in id order, read in the
 * statement that reads the agent: the key lookup of every MCP request is then one round trip.
 */
export const permissionsJson = (dialect: Dialect) =>
  dialect === 'postgres'
    ? sql<string>`(select coalesce(json_agg(json_build_array(p.action_key, p.scope) order by p.id), '[]')::text
        from agent_permissions p where p.agent_id = agents.id)`
    : sql<string>`(select json_group_array(json_array(p.action_key, p.scope))
        from (select action_key, scope from agent_permissions where agent_id = agents.id order by id) p)`;

/** An agent's permissions (`agent_permissions`): what it may call, each maybe scoped. */
export function createAgentPermissionsRepo(db: Executor) {
  const selectPermissions = precompiled(() =>
    db.selectFrom('agentPermissions').select(['actionKey', 'scope']).where('agentId', '=', 0).orderBy('id'),
  );

  return {
    async permissionsOf(agentId: number): Promise<StoredPermission[]> {
      const rows = await selectPermissions(db, agentId);
      return rows.map((row) => ({ actionKey: row.actionKey, scope: parseScope(row.scope) }));
    },

    /** The permissions of many agents in one query (the list). */
    async permissionsOfMany(agentIds: readonly number[]): Promise<Map<number, StoredPermission[]>> {
      const byAgent = new Map<number, StoredPermission[]>(agentIds.map((id) => [id, []]));
      if (agentIds.length === 0) return byAgent;
      const rows = await db
        .selectFrom('agentPermissions')
        .select(['agentId', 'actionKey', 'scope'])
        .where('agentId', 'in', agentIds)
        .orderBy('id')
        .execute();
      for (const row of rows)
        byAgent.get(row.agentId)?.push({ actionKey: row.actionKey, scope: parseScope(row.scope) });
      return byAgent;
    },

    /** Replaces the whole set; run it in a transaction with the agent's update. */
    async replacePermissions(agentId: number, permissions: readonly StoredPermission[]): Promise<void> {
      await db.deleteFrom('agentPermissions').where('agentId', '=', agentId).execute();
      if (permissions.length === 0) return;
      await db
        .insertInto('agentPermissions')
        .values(
          permissions.map((p) => ({
            agentId,
            actionKey: p.actionKey,
            scope: p.scope === null ? null : JSON.stringify(p.scope),
          })),
        )
        .execute();
    },
  };
}

export type AgentPermissionsRepo = ReturnType<typeof createAgentPermissionsRepo>;
