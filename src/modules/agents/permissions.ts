import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { type ErrorDetail, forbidden, invalidFields } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ActionCatalogue, PermissionGroup } from '../../module.js';
import { createAgentsRepo } from './agents-repo.js';
import { type AgentContext, disabledConflict, requireChangeable, requirePerson, toAgent } from './context.js';
import { createAgentPermissionsRepo, type StoredPermission } from './permissions-repo.js';
import type {
  AccessScopeInput,
  Agent,
  CatalogueResponse,
  PermissionGroupEntry,
  PermissionInput,
  UpdatePermissionsInput,
} from './schemas.js';

/** A preset's keys as unscoped permissions. */
export const materialise = (group: PermissionGroup): StoredPermission[] =>
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

/** What a scope may name: the owner's own calendars, and the people groups they belong to. */
async function scopingResources(
  { calendars, userGroups }: AgentContext,
  actor: Actor,
): Promise<CatalogueResponse['scopingResources']> {
  const [ownCalendars, groups] = await Promise.all([calendars.list(actor), userGroups.list(actor)]);
  return {
    calendars: ownCalendars
      .filter((calendar) => calendar.ownerId === actor.userId)
      .map((calendar) => ({ id: calendar.id, name: calendar.name })),
    groups: groups.map((group) => ({ id: group.id, name: group.name })),
  };
}

/** The group if `actor` may assign it: unknown is a 400, a global-admin group for anyone else a 403. */
export async function assignableGroup(
  { catalogue, users }: AgentContext,
  actor: Actor,
  groupId: string,
  path: string,
): Promise<PermissionGroup> {
  const group = catalogue.findPermissionGroup(groupId);
  if (!group) throw invalidFields([{ path, message: 'is not a permission group' }]);
  if (group.requiresGlobalAdmin && !(await users.isGlobalAdmin(actor.userId)))
    throw forbidden(`Only a global admin can assign the ${group.id} permission group`);
  return group;
}

/** The permissions as stored; adds to `details` what the catalogue refuses (unknown, repeated, wrongly scoped). */
function againstCatalogue(
  catalogue: ActionCatalogue,
  permissions: readonly PermissionInput[],
  details: ErrorDetail[],
): StoredPermission[] {
  const seen = new Set<string>();
  const checked: StoredPermission[] = [];
  permissions.forEach((input, index) => {
    const at = `permissions.${index}`;
    const action = catalogue.findAction(input.actionKey);
    if (!action) {
      details.push({ path: `${at}.actionKey`, message: 'is not an action of the catalogue' });
      return;
    }
    if (seen.has(action.key)) details.push({ path: `${at}.actionKey`, message: 'is listed more than once' });
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
  return checked;
}

/** Adds to `details` every scope id that is not a calendar of the owner or a group they belong to. */
async function checkScopesOwned(
  context: AgentContext,
  actor: Actor,
  permissions: readonly PermissionInput[],
  details: ErrorDetail[],
): Promise<void> {
  const allowed = await scopingResources(context, actor);
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

/**
 * Checks explicit permissions against the catalogue and the owner's scoping
 * resources (400), then against what the owner may grant (403): the actions of the
 * groups they may assign.
 */
async function checkPermissions(
  context: AgentContext,
  actor: Actor,
  permissions: readonly PermissionInput[],
): Promise<StoredPermission[]> {
  const { catalogue, users } = context;
  const details: ErrorDetail[] = [];
  const checked = againstCatalogue(catalogue, permissions, details);
  if (checked.some((p) => p.scope)) await checkScopesOwned(context, actor, permissions, details);
  if (details.length > 0) throw invalidFields(details);
  const beyond = checked.map((p) => p.actionKey).filter((key) => catalogue.needsGlobalAdminToGrant(key));
  if (beyond.length > 0 && !(await users.isGlobalAdmin(actor.userId)))
    throw forbidden(
      `Only a global admin can grant ${beyond.join(', ')}: explicit permissions come from the permission groups you may assign`,
    );
  return checked;
}

/**
 * Replaces the agent's permissions and group in one transaction. The agent row is
 * updated first so concurrent replacements of one agent queue on its row lock.
 */
function replacePermissions(
  { db }: AgentContext,
  agentId: number,
  permissionGroupId: string | null,
  permissions: readonly StoredPermission[],
): Promise<Agent> {
  return inTransaction(db.kysely, async (trx) => {
    const row = await createAgentsRepo(trx).update(agentId, { permissionGroupId }, nowIso());
    if (!row) throw disabledConflict();
    await createAgentPermissionsRepo(trx).replacePermissions(agentId, permissions);
    return toAgent(row, permissions);
  });
}

/** What agents may be given: the catalogue, the permission groups, and an agent's permissions. */
export function createAgentPermissions(context: AgentContext) {
  const { catalogue, users } = context;
  return {
    catalog: async (actor: Actor): Promise<CatalogueResponse> => {
      requirePerson(actor);
      return {
        actions: catalogue.actions.map((a) => ({ ...a, scopeKinds: [...a.scopeKinds] })),
        scopingResources: await scopingResources(context, actor),
      };
    },

    async permissionGroups(actor: Actor): Promise<PermissionGroupEntry[]> {
      requirePerson(actor);
      const isGlobalAdmin = await users.isGlobalAdmin(actor.userId);
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

    async setPermissions(actor: Actor, agentId: number, input: UpdatePermissionsInput): Promise<Agent> {
      requirePerson(actor);
      await requireChangeable(context, actor, agentId);
      if (input.permissionGroupId !== undefined) {
        const group = await assignableGroup(context, actor, input.permissionGroupId, 'permissionGroupId');
        return replacePermissions(context, agentId, group.id, materialise(group));
      }
      return replacePermissions(
        context,
        agentId,
        null,
        await checkPermissions(context, actor, input.permissions ?? []),
      );
    },
  };
}
