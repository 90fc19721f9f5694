import { lastUsedIsStale } from '../../lib/credential-keys.js';
import { sha256 } from '../../lib/crypto.js';
import { nowIso } from '../../lib/time.js';
import type { AgentDirectory, ResolvedAgent, ToolCallRecord } from '../../mcp/types.js';
import type { AgentRow } from './agents-repo.js';
import type { AgentContext } from './context.js';
import { AGENT_KEY_PREFIX } from './credentials.js';
import type { StoredPermission } from './permissions-repo.js';
import { redactArguments } from './redact.js';

/** Longest action key an activity row keeps (the MCP layer may record calls of unknown tools). */
const ACTIVITY_KEY_MAX = 200;

function toResolved(row: AgentRow, permissions: readonly StoredPermission[]): ResolvedAgent {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    status: row.status,
    permissionGroupId: row.permissionGroupId,
    permissions: permissions.map((p) => ({ actionKey: p.actionKey, scope: p.scope ?? {} })),
  };
}

/** What the MCP runtime asks of agents on every request: who a credential is, and a record of each call. */
export function createAgentDirectory({ repo }: AgentContext): AgentDirectory {
  async function resolved(row: AgentRow, permissions?: readonly StoredPermission[]): Promise<ResolvedAgent> {
    const [read] = await Promise.all([
      permissions ?? repo.permissionsOf(row.id),
      lastUsedIsStale(row.lastUsedAt) ? repo.touch(row.id, nowIso()) : undefined,
    ]);
    return toResolved(row, read);
  }

  return {
    async resolveKey(key: string): Promise<ResolvedAgent | null> {
      if (!key.startsWith(AGENT_KEY_PREFIX)) return null;
      const found = await repo.findLiveKey(sha256(key));
      if (!found) return null;
      if (lastUsedIsStale(found.keyLastUsedAt)) await repo.touchKey(found.keyId, nowIso());
      return resolved(found.agent, found.permissions);
    },

    async resolveAgent(agentId: number): Promise<ResolvedAgent | null> {
      const row = await repo.findById(agentId);
      if (!row || row.status === 'disabled') return null;
      return resolved(row);
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
