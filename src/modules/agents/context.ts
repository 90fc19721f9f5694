import type { Db, Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import type { ResolvedAgent, SessionColumns } from '../../mcp/types.js';
import type { ActionCatalogue } from '../../module.js';
import type { AuthService } from '../auth/service.js';
import type { CalendarService } from '../calendars/service.js';
import type { UserGroupService } from '../user-groups/service.js';
import type { AgentRow } from './agents-repo.js';
import type { StoredPermission } from './permissions-repo.js';
import type { AgentRepo } from './repo.js';
import type { Agent } from './schemas.js';

/** An agent's MCP sessions, which the MCP runtime keeps; the wiring provides them (src/mcp/sessions.ts). */
export interface AgentSessions {
  /** Ends every open session of the agent at `at`, in the caller's transaction. */
  endForAgent(executor: Executor, agentId: number, at: Date): Promise<void>;
  /** What the credential read selects to check a request's session in its own statement. */
  sessionColumns(): SessionColumns;
}

/** An agent's OAuth refresh tokens, which the oauth module keeps; the wiring provides them. */
export interface AgentRefreshTokens {
  /** Revokes every live one of the agent in the caller's transaction; answers how many. */
  revokeForAgent(executor: Executor, agentId: number, now: string): Promise<number>;
}

/** What `createAgentService` is given. */
export interface AgentServiceDeps {
  db: Db;
  calendars: Pick<CalendarService, 'list'>;
  userGroups: Pick<UserGroupService, 'list'>;
  /** Whether the owner is a global admin (the auth module owns users). */
  users: Pick<AuthService, 'isGlobalAdmin'>;
  sessions: AgentSessions;
  /** The OAuth module's refresh tokens of an agent, revoked when it is disabled. */
  refreshTokens: AgentRefreshTokens;
  /** The actions and presets, derived by the wiring from every module's tools (src/catalogue.ts). */
  catalogue: ActionCatalogue;
}

/** What every use case of the service shares: its dependencies and the long-lived repo. */
export interface AgentContext extends AgentServiceDeps {
  repo: AgentRepo;
}

/** A stored scope as the record shows it: only the kinds it names. */
function scopeView(scope: StoredPermission['scope']): Agent['permissions'][number]['scope'] {
  if (!scope) return null;
  return {
    ...(scope.calendarIds ? { calendarIds: [...scope.calendarIds] } : {}),
    ...(scope.groupIds ? { groupIds: [...scope.groupIds] } : {}),
  };
}

export function toAgent(row: AgentRow, permissions: readonly StoredPermission[]): Agent {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    permissionGroupId: row.permissionGroupId,
    permissions: permissions.map((p) => ({ actionKey: p.actionKey, scope: scopeView(p.scope) })),
    oauthClientId: row.oauthClientId,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  };
}

/**
 * The calling agent's own record from what its credential read loaded (the MCP runtime resolves
 * it on every request), as `toAgent` shows it: a permission scoped by nothing is unscoped (null).
 */
export function toAgentOfResolved(agent: ResolvedAgent): Agent {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    status: agent.status,
    permissionGroupId: agent.permissionGroupId,
    permissions: agent.permissions.map(({ actionKey, scope }) => ({
      actionKey,
      scope: scope.calendarIds || scope.groupIds ? scopeView(scope) : null,
    })),
    oauthClientId: agent.oauthClientId,
    createdAt: agent.createdAt,
    lastUsedAt: agent.lastUsedAt,
  };
}

/** Agents manage nothing about agents: an agent that could would widen its own rights. */
export function requirePerson(actor: Actor) {
  if (actor.agent) throw forbidden('Agents cannot manage agents, their permissions or keys');
}

export const disabledConflict = () =>
  conflict('CONFLICT', 'This agent is disabled; it cannot be changed or revived (create a new agent)');

export async function requireOwned({ repo }: AgentContext, actor: Actor, agentId: number): Promise<AgentRow> {
  const found = await repo.findOwned(actor.userId, agentId);
  if (!found) throw notFound('Agent');
  return found;
}

export async function requireChangeable(
  context: AgentContext,
  actor: Actor,
  agentId: number,
): Promise<AgentRow> {
  const found = await requireOwned(context, actor, agentId);
  if (found.status === 'disabled') throw disabledConflict();
  return found;
}
