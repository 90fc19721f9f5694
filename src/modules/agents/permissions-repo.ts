import { type Executor, precompiled } from '../../db/database.js';
import type { AccessScope } from '../../lib/actor.js';

export interface StoredPermission {
  actionKey: string;
  /** null: unrestricted within the owner's rights. */
  scope: AccessScope | null;
}

function parseScope(text: string | null): AccessScope | null {
  return text === null ? null : (JSON.parse(text) as AccessScope);
}

/**
 * An agent's permissions as `agents.permissions_json` holds them: `[actionKey, scope]` pairs in
 * id order (migration 0081), written with the rows by `replacePermissions`.
 */
export function parsePermissions(json: string): StoredPermission[] {
  const pairs = JSON.parse(json) as Array<[string, AccessScope | null]>;
  return pairs.map(([actionKey, scope]) => ({ actionKey, scope }));
}

const permissionsJsonOf = (permissions: readonly StoredPermission[]) =>
  JSON.stringify(permissions.map((p) => [p.actionKey, p.scope]));

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

    /**
     * Replaces the whole set, and its copy on the agent's row (the one writer of either); run it
     * in a transaction with the agent's update.
     */
    async replacePermissions(agentId: number, permissions: readonly StoredPermission[]): Promise<void> {
      await db
        .updateTable('agents')
        .set({ permissionsJson: permissionsJsonOf(permissions) })
        .where('id', '=', agentId)
        .execute();
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
