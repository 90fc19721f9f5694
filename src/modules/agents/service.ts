import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { UsageKind } from '../../db/tables/agents.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { issueKey, lastUsedIsStale } from '../../lib/credential-keys.js';
import { sha256 } from '../../lib/crypto.js';
import {
  conflict,
  type ErrorDetail,
  forbidden,
  invalidCursor,
  invalidFields,
  notFound,
} from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AgentDirectory, ResolvedAgent, ToolCallRecord } from '../../mcp/types.js';
import type { ActionCatalogue, PermissionGroup } from '../../module.js';
import type { CalendarService } from '../calendars/service.js';
import type { UserGroupService } from '../user-groups/service.js';
import { redactArguments } from './redact.js';
import {
  type AgentRow,
  createAgentRepo,
  type PolicyRow,
  type StoredPermission,
  type UsageTotals,
} from './repo.js';
import {
  type AccessScopeInput,
  type ActivityItem,
  type ActivityQuery,
  AGENT_NAME_MAX,
  type Agent,
  type AgentKey,
  type AgentPolicy,
  type AgentPolicyInput,
  type CatalogueResponse,
  type CreateAgentInput,
  type CreatedAgentKey,
  DEFAULT_POLICY,
  type PermissionGroupEntry,
  type PermissionInput,
  type UpdateAgentInput,
  type UpdatePermissionsInput,
} from './schemas.js';

export const AGENT_KEY_PREFIX = 'ag_sk_';
/** Longest action key an activity row keeps (the MCP layer may record calls of unknown tools). */
const ACTIVITY_KEY_MAX = 200;

/** A stored scope as the record shows it: only the kinds it names. */
function scopeView(scope: StoredPermission['scope']): Agent['permissions'][number]['scope'] {
  if (!scope) return null;
  return {
    ...(scope.calendarIds ? { calendarIds: [...scope.calendarIds] } : {}),
    ...(scope.groupIds ? { groupIds: [...scope.groupIds] } : {}),
  };
}

function toAgent(row: AgentRow, permissions: readonly StoredPermission[]): Agent {
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

type UsageCounting = ReturnType<ReturnType<typeof createAgentRepo>['counting']>;

/** A preset's keys as unscoped permissions. */
const materialise = (group: PermissionGroup): StoredPermission[] =>
  group.actionKeys.map((actionKey) => ({ actionKey, scope: null }));

/** Ids without repeats, ascending; a scope naming no kind is no restriction at all (null). */
function normaliseScope(scope: AccessScopeInput | null | undefined): StoredPermission['scope'] {
  if (!scope) return null;
  const ids = (list: readonly number[]) => [...new Set(list)].sort((a, b) => a - b);
  const normalised = {
    ...(scope.calendarIds ? { calendarIds: ids(scope.calendarIds) } : {}),
    ...(scope.groupIds ? { groupIds: ids(scope.groupIds) } : {}),
  };
  return Object.keys(normalised).length > 0 ? normalised : null;
}

/** The job that deletes activity past AGENT_ACTIVITY_RETENTION_DAYS. */
export const AGENT_ACTIVITY_RETENTION_JOB = 'agent_activity_retention';
const RETENTION_EVERY_MINUTES = 60;
/** A day of a daily limit: the last 24 hours. */
const DAY_MS = 86_400_000;
/** Later than any use: the upper bound of a sum of the whole window. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/** One unit a call would use of a daily limit. */
export interface LimitUse {
  kind: UsageKind;
  amount: number;
  limit: number;
}

class LimitReached extends Error {
  constructor(readonly refusal: Extract<Reservation, { ok: false }>) {
    super('limit reached');
  }
}

/** What `reserveUsage` answers: the rows to give back if the call fails, or the limit that is used up. */
export type Reservation =
  | { ok: true; ids: number[] }
  | { ok: false; kind: UsageKind; limit: number; freesAt: string | null };

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

/** Agents manage nothing about agents: an agent that could would widen its own rights. */
function requirePerson(actor: Actor) {
  if (actor.agent) throw forbidden('Agents cannot manage agents, their permissions or keys');
}

const disabledConflict = () =>
  conflict('CONFLICT', 'This agent is disabled; it cannot be changed or revived (create a new agent)');

export type AgentService = ReturnType<typeof createAgentService>;

/** An agent's MCP sessions, which the MCP runtime keeps; the wiring provides them (src/mcp/sessions.ts). */
export interface AgentSessions {
  /** Ends every open session of the agent at `at`, in the caller's transaction. */
  endForAgent(executor: Executor, agentId: number, at: Date): Promise<void>;
}

export function createAgentService({
  db,
  calendars,
  userGroups,
  sessions,
  catalogue,
  jobs,
  retentionDays = 90,
}: {
  db: Db;
  /** Runs the activity retention purge; absent in unit wiring. */
  jobs?: JobQueue;
  /** AGENT_ACTIVITY_RETENTION_DAYS. */
  retentionDays?: number;
  calendars: Pick<CalendarService, 'list'>;
  userGroups: Pick<UserGroupService, 'list'>;
  sessions: AgentSessions;
  /** The actions and presets, derived by the wiring from every module's tools (src/catalogue.ts). */
  catalogue: ActionCatalogue;
}) {
  const repo = createAgentRepo(db.kysely, db.dialect);

  if (jobs) {
    jobs.work(
      AGENT_ACTIVITY_RETENTION_JOB,
      async () => {
        await repo.purgeActivity(new Date(Date.now() - retentionDays * 86_400_000).toISOString());
        // Uses older than the window count for nothing any more.
        await repo.purgeUsage(new Date(Date.now() - 2 * DAY_MS).toISOString());
      },
      { retryLimit: 0, deduplicate: true },
    );
    jobs.every(AGENT_ACTIVITY_RETENTION_JOB, RETENTION_EVERY_MINUTES);
  }

  async function requireOwned(actor: Actor, agentId: number): Promise<AgentRow> {
    const found = await repo.findOwned(actor.userId, agentId);
    if (!found) throw notFound('Agent');
    return found;
  }

  /** The owner's agent as the API shows it (one statement: it is the agent's own profile tool). */
  async function ownedView(actor: Actor, agentId: number): Promise<Agent> {
    const found = await repo.findOwnedWithPermissions(actor.userId, agentId);
    if (!found) throw notFound('Agent');
    return toAgent(found.agent, found.permissions);
  }

  async function requireChangeable(actor: Actor, agentId: number): Promise<AgentRow> {
    const found = await requireOwned(actor, agentId);
    if (found.status === 'disabled') throw disabledConflict();
    return found;
  }

  async function view(row: AgentRow): Promise<Agent> {
    return toAgent(row, await repo.permissionsOf(row.id));
  }

  /** What a scope may name: the owner's own calendars, and the people groups they belong to. */
  async function scopingResources(actor: Actor): Promise<CatalogueResponse['scopingResources']> {
    const [ownCalendars, groups] = await Promise.all([calendars.list(actor), userGroups.list(actor)]);
    return {
      calendars: ownCalendars
        .filter((calendar) => calendar.ownerId === actor.userId)
        .map((calendar) => ({ id: calendar.id, name: calendar.name })),
      groups: groups.map((group) => ({ id: group.id, name: group.name })),
    };
  }

  /** The group if `actor` may assign it: unknown is a 400, a global-admin group for anyone else a 403. */
  async function assignableGroup(actor: Actor, groupId: string, path: string): Promise<PermissionGroup> {
    const group = catalogue.findPermissionGroup(groupId);
    if (!group) throw invalidFields([{ path, message: 'is not a permission group' }]);
    if (group.requiresGlobalAdmin && !(await repo.isGlobalAdmin(actor.userId)))
      throw forbidden(`Only a global admin can assign the ${group.id} permission group`);
    return group;
  }

  /**
   * Checks explicit permissions against the catalogue and the owner's scoping
   * resources (400), then against what the owner may grant (403): the actions of the
   * groups they may assign.
   */
  async function checkPermissions(
    actor: Actor,
    permissions: readonly PermissionInput[],
  ): Promise<StoredPermission[]> {
    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    const checked: StoredPermission[] = [];
    permissions.forEach((input, index) => {
      const at = `permissions.${index}`;
      const action = catalogue.findAction(input.actionKey);
      if (!action) {
        details.push({ path: `${at}.actionKey`, message: 'is not an action of the catalogue' });
        return;
      }
      if (seen.has(action.key))
        details.push({ path: `${at}.actionKey`, message: 'is listed more than once' });
      seen.add(action.key);
      const scope = normaliseScope(input.scope);
      if (scope?.calendarIds && !action.scopeKinds.includes('calendar'))
        details.push({
          path: `${at}.scope.calendarIds`,
          message: `${action.key} cannot be scoped by calendar`,
        });
      if (scope?.groupIds && !action.scopeKinds.includes('userGroup'))
        details.push({
          path: `${at}.scope.groupIds`,
          message: `${action.key} cannot be scoped by people group`,
        });
      checked.push({ actionKey: action.key, scope });
    });
    if (checked.some((p) => p.scope)) {
      const allowed = await scopingResources(actor);
      const calendarIds = new Set(allowed.calendars.map((c) => c.id));
      const groupIds = new Set(allowed.groups.map((g) => g.id));
      permissions.forEach((input, index) => {
        const at = `permissions.${index}.scope`;
        input.scope?.calendarIds?.forEach((id, i) => {
          if (!calendarIds.has(id))
            details.push({ path: `${at}.calendarIds.${i}`, message: 'is not a calendar of yours' });
        });
        input.scope?.groupIds?.forEach((id, i) => {
          if (!groupIds.has(id))
            details.push({ path: `${at}.groupIds.${i}`, message: 'is not a people group you belong to' });
        });
      });
    }
    if (details.length > 0) throw invalidFields(details);
    const beyond = checked.map((p) => p.actionKey).filter((key) => catalogue.needsGlobalAdminToGrant(key));
    if (beyond.length > 0 && !(await repo.isGlobalAdmin(actor.userId)))
      throw forbidden(
        `Only a global admin can grant ${beyond.join(', ')}: explicit permissions come from the permission groups you may assign`,
      );
    return checked;
  }

  /**
   * Replaces the agent's permissions and group in one transaction. The agent row is
   * updated first so concurrent replacements of one agent queue on its row lock.
   */
  async function replacePermissions(
    agentId: number,
    permissionGroupId: string | null,
    permissions: readonly StoredPermission[],
  ): Promise<Agent> {
    return inTransaction(db.kysely, async (trx) => {
      const agents = createAgentRepo(trx, db.dialect);
      const row = await agents.update(agentId, { permissionGroupId }, nowIso());
      if (!row) throw disabledConflict();
      await agents.replacePermissions(agentId, permissions);
      return toAgent(row, permissions);
    });
  }

  async function resolved(row: AgentRow, permissions?: readonly StoredPermission[]): Promise<ResolvedAgent> {
    const [read] = await Promise.all([
      permissions ?? repo.permissionsOf(row.id),
      lastUsedIsStale(row.lastUsedAt) ? repo.touch(row.id, nowIso()) : undefined,
    ]);
    return toResolved(row, read);
  }

  /**
   * What the agent's uses add up to in the 24 hours after `since`, its window locked. The
   * window of the last count moves forward by the uses that left it since: a few rows, not a
   * day's. A first count, a last count over a day ago (its uses may be purged), or a clock
   * that went back sums the whole window instead.
   */
  async function windowAt(agents: UsageCounting, agentId: number, since: string): Promise<UsageTotals> {
    const window = await agents.lockWindow(agentId);
    const moving =
      window.since !== null &&
      window.since <= since &&
      Date.parse(window.since) >= Date.parse(since) - DAY_MS;
    if (!moving) return agents.sumUses(agentId, since, END_OF_TIME);
    const left = await agents.sumUses(agentId, window.since!, since);
    return {
      booking: window.used.booking - left.booking,
      cancellation: window.used.cancellation - left.cancellation,
      spend: window.used.spend - left.spend,
    };
  }

  const directory: AgentDirectory = {
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

  return {
    ...directory,

    catalog: async (actor: Actor): Promise<CatalogueResponse> => {
      requirePerson(actor);
      return {
        actions: catalogue.actions.map((a) => ({ ...a, scopeKinds: [...a.scopeKinds] })),
        scopingResources: await scopingResources(actor),
      };
    },

    async permissionGroups(actor: Actor): Promise<PermissionGroupEntry[]> {
      requirePerson(actor);
      const isGlobalAdmin = await repo.isGlobalAdmin(actor.userId);
      return catalogue.permissionGroups.map((group) => ({
        id: group.id,
        label: group.label,
        description: group.description,
        actionKeys: [...group.actionKeys],
        canAssign: catalogue.canAssignGroup(group, isGlobalAdmin),
        requiresGlobalAdmin: group.requiresGlobalAdmin,
        highlights: [...group.highlights],
      }));
    },

    async list(actor: Actor): Promise<Agent[]> {
      requirePerson(actor);
      const rows = await repo.listForUser(actor.userId);
      const permissions = await repo.permissionsOfMany(rows.map((row) => row.id));
      return rows.map((row) => toAgent(row, permissions.get(row.id) ?? []));
    },

    async get(actor: Actor, agentId: number): Promise<Agent> {
      requirePerson(actor);
      return ownedView(actor, agentId);
    },

    /** The `agent.profile` tool: the calling agent's own record. */
    async profile(actor: Actor): Promise<Agent> {
      if (!actor.agent) throw notFound('Agent');
      return ownedView(actor, actor.agent.id);
    },

    async create(actor: Actor, input: CreateAgentInput): Promise<Agent> {
      requirePerson(actor);
      const group =
        input.permissionGroupId === undefined
          ? undefined
          : await assignableGroup(actor, input.permissionGroupId, 'permissionGroupId');
      return inTransaction(db.kysely, async (trx) => {
        const agents = createAgentRepo(trx, db.dialect);
        const row = await agents.insert({
          userId: actor.userId,
          name: input.name,
          description: input.description ?? null,
          permissionGroupId: group?.id ?? null,
          oauthClientId: null,
          now: nowIso(),
        });
        const permissions = group ? materialise(group) : [];
        await agents.replacePermissions(row.id, permissions);
        return toAgent(row, permissions);
      });
    },

    /** Name, description, and pausing or resuming; a disabled agent stays as it is (409). */
    async update(actor: Actor, agentId: number, input: UpdateAgentInput): Promise<Agent> {
      requirePerson(actor);
      await requireChangeable(actor, agentId);
      const row = await repo.update(agentId, input, nowIso());
      if (!row) throw disabledConflict();
      return view(row);
    },

    /** DELETE: disables the agent, revokes every key and refresh token, ends its MCP sessions; the record stays. */
    async disable(actor: Actor, agentId: number): Promise<Agent> {
      requirePerson(actor);
      await requireOwned(actor, agentId);
      const row = await inTransaction(db.kysely, async (trx) => {
        const agents = createAgentRepo(trx, db.dialect);
        const now = nowIso();
        const disabled = await agents.update(agentId, { status: 'disabled' }, now, { evenIfDisabled: true });
        await agents.revokeAllKeys(agentId, now);
        await agents.revokeRefreshTokens(agentId, now);
        await sessions.endForAgent(trx, agentId, new Date(now));
        return disabled!;
      });
      return view(row);
    },

    async setPermissions(actor: Actor, agentId: number, input: UpdatePermissionsInput): Promise<Agent> {
      requirePerson(actor);
      await requireChangeable(actor, agentId);
      if (input.permissionGroupId !== undefined) {
        const group = await assignableGroup(actor, input.permissionGroupId, 'permissionGroupId');
        return replacePermissions(agentId, group.id, materialise(group));
      }
      return replacePermissions(agentId, null, await checkPermissions(actor, input.permissions ?? []));
    },

    async listKeys(actor: Actor, agentId: number): Promise<AgentKey[]> {
      requirePerson(actor);
      await requireOwned(actor, agentId);
      return repo.listKeys(agentId);
    },

    /** A new `ag_sk_` key, shown only in this answer; only its hash is stored. */
    async createKey(actor: Actor, agentId: number, label: string): Promise<Omit<CreatedAgentKey, 'mcpUrl'>> {
      requirePerson(actor);
      await requireChangeable(actor, agentId);
      const { key, prefix, keyHash } = issueKey(AGENT_KEY_PREFIX);
      const row = await repo.insertKey({ agentId, label, prefix, keyHash, now: nowIso() });
      return { ...row, key };
    },

    /** Revokes a key of the agent (again: unchanged); a key of another agent is 404. */
    async revokeKey(actor: Actor, agentId: number, keyId: number): Promise<AgentKey> {
      requirePerson(actor);
      await requireOwned(actor, agentId);
      const key = await repo.revokeKey(agentId, keyId, nowIso());
      if (!key) throw notFound('Agent key');
      return key;
    },

    async getPolicy(actor: Actor, agentId: number): Promise<AgentPolicy> {
      requirePerson(actor);
      await requireOwned(actor, agentId);
      return policyView(await repo.policyOf(agentId));
    },

    /** Replaces the policy; a disabled agent's stays as it was (409). */
    async setPolicy(actor: Actor, agentId: number, input: AgentPolicyInput): Promise<AgentPolicy> {
      requirePerson(actor);
      await requireChangeable(actor, agentId);
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

    /** The policy the MCP runtime applies to a call of the agent (no owner check: the caller is the runtime). */
    async policyOf(agentId: number): Promise<AgentPolicy> {
      return policyView(await repo.policyOf(agentId));
    },

    /**
     * Counts a call's uses against the agent's daily limits, all or none, atomically across
     * instances (the agent's usage window is locked while counting). A use past a limit
     * answers which limit and when enough of the window frees for it.
     */
    async reserveUsage(agentId: number, uses: readonly LimitUse[]): Promise<Reservation> {
      if (uses.length === 0) return { ok: true, ids: [] };
      try {
        return await inTransaction(db.kysely, async (trx) => {
          const agents = repo.counting(trx);
          const now = new Date();
          const since = new Date(now.getTime() - DAY_MS).toISOString();
          const used = await windowAt(agents, agentId, since);
          const ids: number[] = [];
          for (const use of uses) {
            if (used[use.kind] + use.amount > use.limit) {
              // The oldest uses leave the window first: when enough have left, the use fits.
              let total = used[use.kind];
              let freesAt: string | null = null;
              for (const row of await agents.usageSince(agentId, use.kind, since)) {
                total -= row.amount;
                if (total + use.amount <= use.limit) {
                  freesAt = new Date(Date.parse(row.createdAt) + DAY_MS).toISOString();
                  break;
                }
              }
              // Rolls back the uses of the other kinds counted just before: all or none.
              throw new LimitReached({ ok: false, kind: use.kind, limit: use.limit, freesAt });
            }
            ids.push(await agents.insertUsage(agentId, use.kind, use.amount, now.toISOString()));
            used[use.kind] += use.amount;
          }
          await agents.saveWindow(agentId, { since, used });
          return { ok: true as const, ids };
        });
      } catch (error) {
        if (error instanceof LimitReached) return error.refusal;
        throw error;
      }
    },

    /** Gives a failed call's uses back. */
    async releaseUsage(agentId: number, ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await inTransaction(db.kysely, async (trx) => {
        const agents = repo.counting(trx);
        const window = await agents.lockWindow(agentId);
        const released = await agents.deleteUsage(agentId, ids);
        // Before the first count there is nothing to take off: that count sums the window.
        if (window.since === null) return;
        for (const use of released) if (use.createdAt > window.since) window.used[use.kind] -= use.amount;
        await agents.saveWindow(agentId, { since: window.since, used: window.used });
      });
    },

    /** The agent's tool calls, newest first. */
    async activity(
      actor: Actor,
      agentId: number,
      query: ActivityQuery,
    ): Promise<{ items: ActivityItem[]; nextCursor: string | null }> {
      requirePerson(actor);
      await requireOwned(actor, agentId);
      try {
        return await repo.listActivity(agentId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    /**
     * OAuth consent: the person's agent for this client, created on first approval
     * and reactivated (status active, permissions replaced by the group) on every
     * later one, so re-approving after a revoke never duplicates the agent.
     */
    async createOrReactivateForOAuthClient(
      actor: Actor,
      input: { clientId: string; clientName: string; permissionGroupId: string },
    ): Promise<Agent> {
      requirePerson(actor);
      const group = await assignableGroup(actor, input.permissionGroupId, 'permissionGroupId');
      const permissions = materialise(group);
      const attempt = () =>
        inTransaction(db.kysely, async (trx) => {
          const agents = createAgentRepo(trx, db.dialect);
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
          await agents.replacePermissions(row!.id, permissions);
          return toAgent(row!, permissions);
        });
      try {
        return await attempt();
      } catch (error) {
        // Two approvals raced to create the agent: the loser reactivates the winner's.
        if (isUniqueViolation(error)) return attempt();
        throw error;
      }
    },

    /** Revokes every outstanding OAuth refresh token of the agent; answers how many. */
    revokeRefreshTokens(agentId: number): Promise<number> {
      return repo.revokeRefreshTokens(agentId, nowIso());
    },
  };
}
