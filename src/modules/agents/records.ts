import { inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import { notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ResolvedAgent } from '../../mcp/types.js';
import { type AgentRow, createAgentsRepo } from './agents-repo.js';
import {
  type AgentContext,
  disabledConflict,
  requireChangeable,
  requireOwned,
  requirePerson,
  toAgent,
  toAgentOfResolved,
} from './context.js';
import { createAgentCredentialsRepo } from './credentials-repo.js';
import { assignableGroup, materialise } from './permissions.js';
import { createAgentPermissionsRepo } from './permissions-repo.js';
import { AGENT_NAME_MAX, type Agent, type CreateAgentInput, type UpdateAgentInput } from './schemas.js';

/** The owner's agent as the API shows it, in one statement. */
async function ownedView({ repo }: AgentContext, actor: Actor, agentId: number): Promise<Agent> {
  const found = await repo.findOwnedWithPermissions(actor.userId, agentId);
  if (!found) throw notFound('Agent');
  return toAgent(found.agent, found.permissions);
}

async function view({ repo }: AgentContext, row: AgentRow): Promise<Agent> {
  return toAgent(row, await repo.permissionsOf(row.id));
}

async function createAgent(context: AgentContext, actor: Actor, input: CreateAgentInput): Promise<Agent> {
  const { db } = context;
  requirePerson(actor);
  const group =
    input.permissionGroupId === undefined
      ? undefined
      : await assignableGroup(context, actor, input.permissionGroupId, 'permissionGroupId');
  return inTransaction(db.kysely, async (trx) => {
    const row = await createAgentsRepo(trx).insert({
      userId: actor.userId,
      name: input.name,
      description: input.description ?? null,
      permissionGroupId: group?.id ?? null,
      oauthClientId: null,
      now: nowIso(),
    });
    const permissions = group ? materialise(group) : [];
    await createAgentPermissionsRepo(trx).replacePermissions(row.id, permissions);
    return toAgent(row, permissions);
  });
}

/** Disables the agent and ends every way it signs in, in one transaction; the record stays. */
async function disableAgent(context: AgentContext, actor: Actor, agentId: number): Promise<Agent> {
  const { db, sessions, refreshTokens } = context;
  requirePerson(actor);
  await requireOwned(context, actor, agentId);
  const row = await inTransaction(db.kysely, async (trx) => {
    const agents = createAgentsRepo(trx);
    const credentials = createAgentCredentialsRepo(trx);
    const now = nowIso();
    const disabled = await agents.update(agentId, { status: 'disabled' }, now, { evenIfDisabled: true });
    await credentials.revokeAllKeys(agentId, now);
    await refreshTokens.revokeForAgent(trx, agentId, now);
    await sessions.endForAgent(trx, agentId, new Date(now));
    return disabled!;
  });
  return view(context, row);
}

/** OAuth consent's agent (see AgentService): one per person and client, reactivated by each later approval. */
async function createOrReactivateForOAuthClient(
  context: AgentContext,
  actor: Actor,
  input: { clientId: string; clientName: string; permissionGroupId: string },
): Promise<Agent> {
  const { db } = context;
  requirePerson(actor);
  const group = await assignableGroup(context, actor, input.permissionGroupId, 'permissionGroupId');
  const permissions = materialise(group);
  const attempt = () =>
    inTransaction(db.kysely, async (trx) => {
      const agents = createAgentsRepo(trx);
      const now = nowIso();
      const existing = await agents.findByOAuthClient(actor.userId, input.clientId);
      const row = existing
        ? await agents.update(existing.id, { status: 'active', permissionGroupId: group.id }, now, {
            evenIfDisabled: true,
          })
        : await agents.insert({
            userId: actor.userId,
            name: input.clientName.trim().slice(0, AGENT_NAME_MAX) || 'OAuth client',
            description: null,
            permissionGroupId: group.id,
            oauthClientId: input.clientId,
            now,
          });
      await createAgentPermissionsRepo(trx).replacePermissions(row!.id, permissions);
      return toAgent(row!, permissions);
    });
  try {
    return await attempt();
  } catch (error) {
    // Two approvals raced to create the agent: the loser reactivates the winner's.
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** The owner's agents: list, read, create, change, disable; and the agent an OAuth consent makes. */
export function createAgentRecords(context: AgentContext) {
  const { repo } = context;
  return {
    async list(actor: Actor): Promise<Agent[]> {
      requirePerson(actor);
      const rows = await repo.listForUser(actor.userId);
      const permissions = await repo.permissionsOfMany(rows.map((row) => row.id));
      return rows.map((row) => toAgent(row, permissions.get(row.id) ?? []));
    },

    async get(actor: Actor, agentId: number): Promise<Agent> {
      requirePerson(actor);
      return ownedView(context, actor, agentId);
    },

    async profile(actor: Actor, caller: ResolvedAgent): Promise<Agent> {
      // Only the agent itself, as its request's credential read loaded it: no read of its own.
      if (actor.agent?.id !== caller.id || actor.userId !== caller.userId) throw notFound('Agent');
      return toAgentOfResolved(caller);
    },

    create: (actor: Actor, input: CreateAgentInput) => createAgent(context, actor, input),

    async update(actor: Actor, agentId: number, input: UpdateAgentInput): Promise<Agent> {
      requirePerson(actor);
      await requireChangeable(context, actor, agentId);
      const row = await repo.update(agentId, input, nowIso());
      if (!row) throw disabledConflict();
      return view(context, row);
    },

    disable: (actor: Actor, agentId: number) => disableAgent(context, actor, agentId),

    createOrReactivateForOAuthClient: (
      actor: Actor,
      input: { clientId: string; clientName: string; permissionGroupId: string },
    ) => createOrReactivateForOAuthClient(context, actor, input),
  };
}
