import type { Actor } from '../../lib/actor.js';
import { nowIso } from '../../lib/time.js';
import { type AgentContext, requireChangeable, requireOwned, requirePerson } from './context.js';
import type { PolicyRow } from './policy-repo.js';
import { type AgentPolicy, type AgentPolicyInput, DEFAULT_POLICY } from './schemas.js';

const policyView = (row: PolicyRow | undefined): AgentPolicy =>
  row
    ? {
        requireApproval: row.requireApproval,
        approvalOverAmount: row.approvalOverAmount,
        limits: {
          bookingsPerDay: row.bookingsPerDay,
          cancellationsPerDay: row.cancellationsPerDay,
          spendPerDay: row.spendPerDay,
        },
      }
    : DEFAULT_POLICY;

/** An agent's policy: which calls wait for the owner's approval, and its daily limits. */
export function createAgentPolicies(context: AgentContext) {
  const { repo } = context;
  return {
    async getPolicy(actor: Actor, agentId: number): Promise<AgentPolicy> {
      requirePerson(actor);
      await requireOwned(context, actor, agentId);
      return policyView(await repo.policyOf(agentId));
    },

    async setPolicy(actor: Actor, agentId: number, input: AgentPolicyInput): Promise<AgentPolicy> {
      requirePerson(actor);
      await requireChangeable(context, actor, agentId);
      const row: PolicyRow = {
        agentId,
        requireApproval: input.requireApproval,
        approvalOverAmount: input.approvalOverAmount,
        bookingsPerDay: input.limits.bookingsPerDay,
        cancellationsPerDay: input.limits.cancellationsPerDay,
        spendPerDay: input.limits.spendPerDay,
        updatedAt: nowIso(),
      };
      await repo.upsertPolicy(row);
      return policyView(row);
    },

    async policyOf(agentId: number): Promise<AgentPolicy> {
      return policyView(await repo.policyOf(agentId));
    },
  };
}
