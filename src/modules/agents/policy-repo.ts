import type { Selectable } from 'kysely';
import { type Executor, precompiled } from '../../db/database.js';
import type { AgentPoliciesTable } from './tables.js';

export type PolicyRow = Selectable<AgentPoliciesTable>;

/** An agent's policy (`agent_policies`): approvals and daily limits; no row is the default policy. */
export function createAgentPolicyRepo(db: Executor) {
  // The policy of every writing tool call.
  const selectPolicy = precompiled(() => db.selectFrom('agentPolicies').selectAll().where('agentId', '=', 0));

  return {
    async policyOf(agentId: number): Promise<PolicyRow | undefined> {
      const [row] = await selectPolicy(db, agentId);
      return row;
    },

    async upsertPolicy(row: PolicyRow): Promise<void> {
      const { agentId, ...values } = row;
      await db
        .insertInto('agentPolicies')
        .values(row)
        .onConflict((oc) => oc.column('agentId').doUpdateSet(values))
        .execute();
    },
  };
}

export type AgentPolicyRepo = ReturnType<typeof createAgentPolicyRepo>;
