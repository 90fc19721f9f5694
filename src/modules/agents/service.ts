import type { Actor } from '../../lib/actor.js';
import type { ResolvedAgent, SessionProbe, ToolCallRecord } from '../../mcp/types.js';
import { createAgentActivity } from './activity.js';
import type { AgentContext, AgentServiceDeps } from './context.js';
import { createAgentCredentials } from './credentials.js';
import { createDailyLimits, type LimitUse, type Reservation } from './daily-limits.js';
import { createAgentDirectory } from './directory.js';
import { createAgentPermissions } from './permissions.js';
import { createAgentPolicies } from './policy.js';
import { createAgentRecords } from './records.js';
import { createAgentRepo } from './repo.js';
import type {
  ActivityItem,
  ActivityQuery,
  Agent,
  AgentKey,
  AgentPolicy,
  AgentPolicyInput,
  CatalogueResponse,
  CreateAgentInput,
  CreatedAgentKey,
  PermissionGroupEntry,
  UpdateAgentInput,
  UpdatePermissionsInput,
} from './schemas.js';

export { AGENT_ACTIVITY_RETENTION_JOB, RETENTION_EVERY_MINUTES } from './activity.js';
export type { AgentServiceDeps, AgentSessions } from './context.js';
export { AGENT_KEY_PREFIX } from './credentials.js';
export type { LimitUse, Reservation };

/**
 * Agents: the owner's records of them (records.ts), what they may call (permissions.ts), their
 * keys (credentials.ts), policy (policy.ts), daily limits (daily-limits.ts) and tool calls
 * (activity.ts), and what the MCP runtime asks on every request (directory.ts). Every method
 * taking an actor is the owner's, refused (403) to an agent, but `profile`.
 */
export interface AgentService {
  /**
   * A static agent key (`ag_sk_...`): null when unknown or revoked, or when the agent is disabled.
   * With `session`, the same statement checks that MCP session (`ResolvedAgent.session`).
   */
  resolveKey(key: string, session?: SessionProbe): Promise<ResolvedAgent | null>;
  /** The agent an OAuth access token names (`sub`): null when absent or disabled; `session` as above. */
  resolveAgent(agentId: number, session?: SessionProbe): Promise<ResolvedAgent | null>;
  /** Records one tool call for `GET /api/agents/:id/activity`, its arguments redacted. */
  recordToolCall(call: ToolCallRecord): Promise<void>;

  /** The actions an agent may be given, and what a scope may name: the actor's calendars and people groups. */
  catalog(actor: Actor): Promise<CatalogueResponse>;
  /** The permission groups (presets), each saying whether the actor may assign it. */
  permissionGroups(actor: Actor): Promise<PermissionGroupEntry[]>;
  /**
   * Replaces the agent's permissions: a permission group's (one the actor may assign), or
   * explicit ones checked against the catalogue and the actor's scoping resources (400) and
   * what the actor may grant (403). A disabled agent's stay as they are (409).
   */
  setPermissions(actor: Actor, agentId: number, input: UpdatePermissionsInput): Promise<Agent>;

  /** The actor's agents, with their permissions. */
  list(actor: Actor): Promise<Agent[]>;
  /** The actor's agent; another user's is 404, exactly like an absent one. */
  get(actor: Actor, agentId: number): Promise<Agent>;
  /** The `agent.profile` tool: the calling agent's own record, as its credential read loaded it (`caller`). */
  profile(actor: Actor, caller: ResolvedAgent): Promise<Agent>;
  /** Creates an agent, with the permissions of its permission group when it names one the actor may assign. */
  create(actor: Actor, input: CreateAgentInput): Promise<Agent>;
  /** Name, description, and pausing or resuming; a disabled agent stays as it is (409). */
  update(actor: Actor, agentId: number, input: UpdateAgentInput): Promise<Agent>;
  /** DELETE: disables the agent, revokes every key and refresh token, ends its MCP sessions; the record stays. */
  disable(actor: Actor, agentId: number): Promise<Agent>;
  /**
   * OAuth consent: the person's agent for this client, created on first approval
   * and reactivated (status active, permissions replaced by the group) on every
   * later one, so re-approving after a revoke never duplicates the agent.
   */
  createOrReactivateForOAuthClient(
    actor: Actor,
    input: { clientId: string; clientName: string; permissionGroupId: string },
  ): Promise<Agent>;

  /** The agent's keys, revoked ones included (never a key itself). */
  listKeys(actor: Actor, agentId: number): Promise<AgentKey[]>;
  /** A new `ag_sk_` key, shown only in this answer; only its hash is stored. */
  createKey(actor: Actor, agentId: number, label: string): Promise<Omit<CreatedAgentKey, 'mcpUrl'>>;
  /** Revokes a key of the agent (again: unchanged); a key of another agent is 404. */
  revokeKey(actor: Actor, agentId: number, keyId: number): Promise<AgentKey>;
  /** Revokes every outstanding OAuth refresh token of the agent; answers how many. */
  revokeRefreshTokens(agentId: number): Promise<number>;

  /** The agent's policy; the default one until the owner sets one. */
  getPolicy(actor: Actor, agentId: number): Promise<AgentPolicy>;
  /** Replaces the policy; a disabled agent's stays as it was (409). */
  setPolicy(actor: Actor, agentId: number, input: AgentPolicyInput): Promise<AgentPolicy>;
  /** The policy the MCP runtime applies to a call of the agent (no owner check: the caller is the runtime). */
  policyOf(agentId: number): Promise<AgentPolicy>;

  /**
   * Counts a call's uses against the agent's daily limits, all or none, atomically across
   * instances (the agent's usage window is locked while counting). A use past a limit
   * answers which limit and when enough of the window frees for it.
   */
  reserveUsage(agentId: number, uses: readonly LimitUse[]): Promise<Reservation>;
  /** Gives a failed call's uses back. */
  releaseUsage(agentId: number, ids: readonly number[]): Promise<void>;

  /** The retention job's run: deletes activity older than `retentionDays`, and uses no daily limit counts any more. */
  purgeActivity(retentionDays: number): Promise<void>;
  /** The agent's tool calls, newest first. */
  activity(
    actor: Actor,
    agentId: number,
    query: ActivityQuery,
  ): Promise<{ items: ActivityItem[]; nextCursor: string | null }>;
}

export function createAgentService({
  db,
  calendars,
  userGroups,
  users,
  sessions,
  refreshTokens,
  catalogue,
}: AgentServiceDeps): AgentService {
  // One repo for the service's life: its precompiled statements compile once.
  const context: AgentContext = {
    db,
    calendars,
    userGroups,
    users,
    sessions,
    refreshTokens,
    catalogue,
    repo: createAgentRepo(db.kysely, db.dialect, sessions.sessionColumns()),
  };
  return {
    ...createAgentDirectory(context),
    ...createAgentPermissions(context),
    ...createAgentRecords(context),
    ...createAgentCredentials(context),
    ...createAgentPolicies(context),
    ...createDailyLimits(context),
    ...createAgentActivity(context),
  };
}
