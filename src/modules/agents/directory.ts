import { lastUsedIsStale } from '../../lib/credential-keys.js';
import { sha256 } from '../../lib/crypto.js';
import { nowIso } from '../../lib/time.js';
import type {
  AgentDirectory,
  ProbedSession,
  ResolvedAgent,
  SessionProbe,
  ToolCallRecord,
} from '../../mcp/types.js';
import type { AgentRow } from './agents-repo.js';
import type { AgentContext } from './context.js';
import { AGENT_KEY_PREFIX } from './credentials.js';
import type { StoredPermission } from './permissions-repo.js';
import { redactArguments } from './redact.js';

/** Longest action key an activity row keeps (the MCP layer may record calls of unknown tools). */
const ACTIVITY_KEY_MAX = 200;

function toResolved(
  row: AgentRow,
  permissions: readonly StoredPermission[],
  usedAt: string | null,
): ResolvedAgent {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    status: row.status,
    permissionGroupId: row.permissionGroupId,
    permissions: permissions.map((p) => ({ actionKey: p.actionKey, scope: p.scope ?? {} })),
    description: row.description,
    oauthClientId: row.oauthClientId,
    createdAt: row.createdAt,
    lastUsedAt: usedAt ?? row.lastUsedAt,
  };
}

/**
 * What the MCP runtime asks of agents on every request: who a credential is (the agent with
 * its permissions, each credential kind in one statement), and a record of each call.
 */
export function createAgentDirectory({ repo }: AgentContext): AgentDirectory {
  /** The agent as resolved, marked used now when its mark is stale (as the record then reads). */
  async function resolved(found: {
    agent: AgentRow;
    permissions: readonly StoredPermission[];
    session: ProbedSession | null | undefined;
  }): Promise<ResolvedAgent> {
    const { agent, permissions, session } = found;
    const usedAt = lastUsedIsStale(agent.lastUsedAt) ? nowIso() : null;
    if (usedAt) await repo.touch(agent.id, usedAt);
    const resolvedAgent = toResolved(agent, permissions, usedAt);
    return session === undefined ? resolvedAgent : { ...resolvedAgent, session };
  }

  return {
    async resolveKey(key: string, session?: SessionProbe): Promise<ResolvedAgent | null> {
      if (!key.startsWith(AGENT_KEY_PREFIX)) return null;
      const found = await repo.findLiveKey(sha256(key), session);
      if (!found) return null;
      if (lastUsedIsStale(found.keyLastUsedAt)) await repo.touchKey(found.keyId, nowIso());
      return resolved(found);
    },

    async resolveAgent(agentId: number, session?: SessionProbe): Promise<ResolvedAgent | null> {
      const found = await repo.findWithPermissions(agentId, session);
      if (!found || found.agent.status === 'disabled') return null;
      return resolved(found);
    },

    async recordToolCall(call: ToolCallRecord): Promise<void> {
      const args = call.arguments === undefined ? null : redactArguments(call.arguments);
      await repo.insertActivity({
        agentId: call.agentId,
        actionKey: call.actionKey.slice(0, ACTIVITY_KEY_MAX),
        outcome: call.outcome,
        errorCode: call.outcome === 'error' ? call.errorCode : null,
        durationMs: Math.max(0, Math.round(call.durationMs)),
        arguments:
          args === null || typeof args !== 'object' || Array.isArray(args) ? null : JSON.stringify(args),
        targetIds: call.targetIds && call.targetIds.length > 0 ? JSON.stringify(call.targetIds) : null,
        approvalId: call.approvalId ?? null,
        now: nowIso(),
      });
    },
  };
}
