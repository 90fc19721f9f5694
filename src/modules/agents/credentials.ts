import type { Actor } from '../../lib/actor.js';
import { issueKey } from '../../lib/credential-keys.js';
import { notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { type AgentContext, requireChangeable, requireOwned, requirePerson } from './context.js';
import type { AgentKey, CreatedAgentKey } from './schemas.js';

export const AGENT_KEY_PREFIX = 'ag_sk_';

/** How an agent signs in: its static keys, managed by the owner, and its OAuth refresh tokens. */
export function createAgentCredentials(context: AgentContext) {
  const { repo } = context;
  return {
    async listKeys(actor: Actor, agentId: number): Promise<AgentKey[]> {
      requirePerson(actor);
      await requireOwned(context, actor, agentId);
      return repo.listKeys(agentId);
    },

    async createKey(actor: Actor, agentId: number, label: string): Promise<Omit<CreatedAgentKey, 'mcpUrl'>> {
      requirePerson(actor);
      await requireChangeable(context, actor, agentId);
      const { key, prefix, keyHash } = issueKey(AGENT_KEY_PREFIX);
      const row = await repo.insertKey({ agentId, label, prefix, keyHash, now: nowIso() });
      return { ...row, key };
    },

    async revokeKey(actor: Actor, agentId: number, keyId: number): Promise<AgentKey> {
      requirePerson(actor);
      await requireOwned(context, actor, agentId);
      const key = await repo.revokeKey(agentId, keyId, nowIso());
      if (!key) throw notFound('Agent key');
      return key;
    },

    revokeRefreshTokens(agentId: number): Promise<number> {
      return context.refreshTokens.revokeForAgent(context.db.kysely, agentId, nowIso());
    },
  };
}
