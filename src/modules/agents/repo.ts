import type { Dialect, Executor } from '../../db/database.js';
import type { SessionColumns } from '../../mcp/types.js';
import { type AgentActivityRepo, createAgentActivityRepo } from './activity-repo.js';
import { type AgentsRepo, createAgentsRepo } from './agents-repo.js';
import { type AgentCredentialsRepo, createAgentCredentialsRepo } from './credentials-repo.js';
import { type AgentPermissionsRepo, createAgentPermissionsRepo } from './permissions-repo.js';
import { type AgentPolicyRepo, createAgentPolicyRepo } from './policy-repo.js';
import { type AgentUsageRepo, createAgentUsageRepo } from './usage-repo.js';

/** Every query of the agents module, by concern (the `*-repo.ts` files of this folder). */
export interface AgentRepo
  extends AgentsRepo,
    AgentPermissionsRepo,
    AgentCredentialsRepo,
    AgentPolicyRepo,
    AgentUsageRepo,
    AgentActivityRepo {}

/**
 * The service's long-lived repo: built once, so each concern's precompiled statements compile
 * once. A transaction builds only the concern repos it writes through. `sessions`: what the
 * credential reads select to check a request's MCP session in their own statement.
 */
export function createAgentRepo(db: Executor, dialect: Dialect, sessions: SessionColumns): AgentRepo {
  return {
    ...createAgentsRepo(db, sessions),
    ...createAgentPermissionsRepo(db),
    ...createAgentCredentialsRepo(db, sessions),
    ...createAgentPolicyRepo(db),
    ...createAgentUsageRepo(db),
    ...createAgentActivityRepo(db, dialect),
  };
}
