import { sql } from 'kysely';
import { type Executor, precompiled } from '../../db/database.js';
import type { SessionColumns, SessionProbe } from '../../mcp/types.js';
import { type AgentRow, probed, type SessionRow } from './agents-repo.js';
import { parsePermissions } from './permissions-repo.js';
import type { AgentKey } from './schemas.js';

const keyColumns = ['id', 'label', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt'] as const;

/**
 * How an agent signs in: its static keys (`agent_keys`) and its OAuth refresh tokens. `sessions`
 * (the long-lived repo's): what the key lookup selects to check a request's MCP session too.
 */
export function createAgentCredentialsRepo(db: Executor, sessions?: SessionColumns) {
  // The lookup of every MCP request authenticated by a static key: the key, its agent, and
  // the agent's permissions, in one statement.
  const liveKey = () =>
    db
      .selectFrom('agentKeys')
      .innerJoin('agents', 'agents.id', 'agentKeys.agentId')
      .selectAll('agents')
      .select(['agentKeys.id as keyId', 'agentKeys.lastUsedAt as keyLastUsedAt'])
      .where('agentKeys.keyHash', '=', '')
      .where('agentKeys.revokedAt', 'is', null)
      // A literal, so the key hash stays the lookup's only parameter (the session's come before it).
      .where('agents.status', '!=', sql.lit('disabled'));
  const selectLiveKey = precompiled(liveKey);
  // The same with the request's 2025-era session checked: the session's parameters come first.
  const selectLiveKeyInSession = precompiled(() =>
    liveKey().select([
      sessions!.lastUsedAt.as('sessionLastUsedAt'),
      sessions!.urlElicitation.as('sessionUrlElicitation'),
    ]),
  );

  return {
    insertKey(values: { agentId: number; label: string; prefix: string; keyHash: string; now: string }) {
      return db
        .insertInto('agentKeys')
        .values({
          agentId: values.agentId,
          label: values.label,
          prefix: values.prefix,
          keyHash: values.keyHash,
          createdAt: values.now,
        })
        .returning(['id', 'label', 'prefix', 'createdAt'])
        .executeTakeFirstOrThrow();
    },

    listKeys(agentId: number): Promise<AgentKey[]> {
      return db
        .selectFrom('agentKeys')
        .select(keyColumns)
        .where('agentId', '=', agentId)
        .orderBy('id')
        .execute();
    },

    /** Revokes one key of the agent if still live; answers the key, or undefined when the agent has none such. */
    async revokeKey(agentId: number, keyId: number, now: string): Promise<AgentKey | undefined> {
      await db
        .updateTable('agentKeys')
        .set({ revokedAt: now })
        .where('id', '=', keyId)
        .where('agentId', '=', agentId)
        .where('revokedAt', 'is', null)
        .execute();
      return db
        .selectFrom('agentKeys')
        .select(keyColumns)
        .where('id', '=', keyId)
        .where('agentId', '=', agentId)
        .executeTakeFirst();
    },

    async revokeAllKeys(agentId: number, now: string): Promise<void> {
      await db
        .updateTable('agentKeys')
        .set({ revokedAt: now })
        .where('agentId', '=', agentId)
        .where('revokedAt', 'is', null)
        .execute();
    },

    /** The live key with this hash and its agent (not disabled), and `session`'s columns, in one query. */
    async findLiveKey(keyHash: string, session?: SessionProbe) {
      const [row] = session
        ? await selectLiveKeyInSession(db, ...sessions!.parameters(session), keyHash)
        : await selectLiveKey(db, keyHash);
      if (!row) return undefined;
      const { keyId, keyLastUsedAt, permissionsJson, ...rest } = row;
      const { sessionLastUsedAt, sessionUrlElicitation, ...agent } = rest as typeof rest & SessionRow;
      return {
        keyId,
        keyLastUsedAt,
        agent: agent as AgentRow,
        permissions: parsePermissions(permissionsJson),
        session: probed(session, { sessionLastUsedAt, sessionUrlElicitation }),
      };
    },

    async touchKey(id: number, now: string): Promise<void> {
      await db.updateTable('agentKeys').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },
  };
}

export type AgentCredentialsRepo = ReturnType<typeof createAgentCredentialsRepo>;
