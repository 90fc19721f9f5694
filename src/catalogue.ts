import type { ActionRisk, CatalogueAction } from './mcp/types.js';
import type { ActionCatalogue, ActionKeyOf, ModuleDefinition, PermissionGroup } from './module.js';
import type { PermissionGroupId } from './modules/agents/schemas.js';
import { MODULES } from './modules/index.js';

/**
 * The action catalogue: every action the MCP runtime offers, the one list the permission
 * screens, the presets and the runtime all read. It is derived from the tools the modules
 * declare (each module's tools.ts, one declaration per tool with its catalogue entry);
 * each action is the MCP tool named by its key with `.` replaced by `_`.
 */

/** Every declared action key, as a union of literal types: a preset naming another fails to compile. */
export type ActionKey = ActionKeyOf<typeof MODULES>;

/** Actions the catalogue lists away from their module's tools: after the action named. */
const LISTED_AFTER: Partial<Record<ActionKey, ActionKey>> = {
  'pricing.read': 'availability.resourceType.read',
};

/**
 * Every module in the order the catalogue, `tools/list` and `resources/list` present them:
 * by each module's `presentation.order`, then those without one in MODULES order. Within a
 * module, its tools.ts order.
 */
function presentationOrder(modules: readonly ModuleDefinition[]): ModuleDefinition[] {
  const ordered = modules.filter((module) => module.presentation);
  const orderOf = (module: ModuleDefinition) => module.presentation?.order ?? 0;
  ordered.sort((a, b) => orderOf(a) - orderOf(b));
  for (const [i, module] of ordered.entries())
    if (i > 0 && orderOf(ordered[i - 1]!) === orderOf(module))
      throw new Error(`${ordered[i - 1]!.name} and ${module.name} are presented at the same place`);
  return [...ordered, ...modules.filter((module) => !module.presentation)];
}

export const PRESENTED_MODULES: readonly ModuleDefinition[] = presentationOrder(MODULES);

/** The modules that declare tools, in presentation order: the MCP wiring binds them in this order. */
export const TOOL_MODULES: readonly ModuleDefinition[] = PRESENTED_MODULES.filter(
  (module) => (module.tools?.length ?? 0) > 0,
);

function catalogueOrder(): CatalogueAction<ActionKey>[] {
  const declared = TOOL_MODULES.flatMap((module) => module.tools ?? []).map(
    (tool): CatalogueAction<ActionKey> => ({
      key: tool.actionKey as ActionKey,
      title: tool.title,
      description: tool.catalogue.description,
      risk: tool.catalogue.risk,
      scopeKinds: tool.catalogue.scopeKinds,
      alwaysAllowed: tool.catalogue.alwaysAllowed ?? false,
    }),
  );
  const keys = new Set<string>();
  for (const action of declared) {
    if (keys.has(action.key)) throw new Error(`Two tools declare the action ${action.key}`);
    keys.add(action.key);
  }
  const ordered = declared.filter((action) => !LISTED_AFTER[action.key]);
  for (const action of declared) {
    const anchor = LISTED_AFTER[action.key];
    if (!anchor) continue;
    const at = ordered.findIndex((a) => a.key === anchor);
    if (at < 0) throw new Error(`${action.key} is listed after ${anchor}, which no tool declares`);
    ordered.splice(at + 1, 0, action);
  }
  return ordered;
}

export const ACTIONS: readonly CatalogueAction<ActionKey>[] = catalogueOrder();

const BY_KEY = new Map<string, CatalogueAction<ActionKey>>(ACTIONS.map((a) => [a.key, a]));

export function findAction(key: string): CatalogueAction<ActionKey> | undefined {
  return BY_KEY.get(key);
}

/** The risk of an action, for the MCP tool annotations; an action missing from the catalogue counts as a write. */
export function riskOf(key: string): ActionRisk {
  return BY_KEY.get(key)?.risk ?? 'write';
}

/** Keys an owner grants (the always-allowed profile needs no grant). */
const grantable = ACTIONS.filter((a) => !a.alwaysAllowed);
const keysWhere = (test: (a: CatalogueAction<ActionKey>) => boolean) =>
  grantable.filter(test).map((a) => a.key);
const keysStartingWith = (...prefixes: string[]) =>
  keysWhere((a) => prefixes.some((prefix) => a.key.startsWith(prefix)));

export interface PermissionPreset extends PermissionGroup {
  id: PermissionGroupId;
  actionKeys: readonly ActionKey[];
}

const CALENDAR_READS: ActionKey[] = [
  'calendar.list',
  'calendar.get',
  'calendar.events.read',
  'calendar.events.get',
];

/** SPEC.md's nine presets. Assigning one materialises `actionKeys` (unscoped) as the agent's permissions. */
export const PERMISSION_GROUPS: readonly PermissionPreset[] = [
  {
    id: 'minimal',
    label: 'Minimal',
    description: 'The smallest safe planning footprint: profile, context, calendar reads and task reads.',
    actionKeys: ['user.profile.read', 'organisation.get', ...CALENDAR_READS, 'tasks.list', 'tasks.get'],
    requiresGlobalAdmin: false,
    highlights: ['Reads your profile, calendars, events and tasks', 'Cannot change anything'],
  },
  {
    id: 'all_read_only',
    label: 'Read only',
    description: 'Read-only access across the whole MCP catalogue.',
    actionKeys: keysWhere((a) => a.risk === 'read'),
    requiresGlobalAdmin: false,
    highlights: ['Reads everything you can read', 'Cannot create, change or delete anything'],
  },
  {
    id: 'calendar_only',
    label: 'Calendar only',
    description: 'Lists and reads calendars, reads, creates and updates events; nothing else.',
    actionKeys: [...CALENDAR_READS, 'calendar.events.create', 'calendar.events.update'],
    requiresGlobalAdmin: false,
    highlights: ['Reads your calendars and events', 'Creates and updates events', 'Cannot delete events'],
  },
  {
    id: 'tasks_and_routines',
    label: 'Tasks and routines',
    description: 'The full tasks workspace: tasks, labels, checklists, dependencies and routine templates.',
    actionKeys: keysStartingWith('tasks.', 'routines.'),
    requiresGlobalAdmin: false,
    highlights: [
      'Manages tasks, labels, checklists and dependencies',
      'Manages and runs routines',
      'Can delete tasks and routines',
    ],
  },
  {
    id: 'reservations_operator',
    label: 'Reservations operator',
    description:
      'Checks availability and pricing, creates reservations and holds, confirms or releases its holds and reschedules reservations in your active organisation; lists resource types and resources to name what it books.',
    actionKeys: [
      'resourceTypes.list',
      'resources.list',
      ...keysStartingWith('availability.', 'pricing.'),
      'reservations.create',
      'reservations.hold',
      'reservations.confirm',
      'reservations.release',
      'reservations.reschedule',
      'reservations.series.get',
    ],
    requiresGlobalAdmin: false,
    highlights: [
      'Reads availability and prices',
      'Creates reservations, holds times, confirms, releases or reschedules them',
      'Cannot cancel reservations',
    ],
  },
  {
    id: 'automation_manager',
    label: 'Automation manager',
    description: 'Reads automation rules and their audit, runs rules, with read-only calendar context.',
    actionKeys: [
      'automation.rules.list',
      'automation.rules.get',
      'automation.rules.trigger',
      'automation.audit.list',
      'automation.eventTags.list',
      ...CALENDAR_READS,
    ],
    requiresGlobalAdmin: false,
    highlights: ['Reads rules and what they did', 'Runs rules', 'Cannot create, change or delete rules'],
  },
  {
    id: 'household_manager',
    label: 'Household manager',
    description: 'Reads and writes the household inventory, plus task reads.',
    actionKeys: [
      ...keysWhere((a) => a.key.startsWith('household.') && a.risk !== 'destructive'),
      'tasks.list',
      'tasks.get',
    ],
    requiresGlobalAdmin: false,
    highlights: ['Reads, adds and updates household items', 'Reads tasks', 'Cannot delete items'],
  },
  {
    id: 'operational_read_write',
    label: 'Operational read and write',
    description: 'Reads everything plus operational creates, updates and triggers; no destructive actions.',
    actionKeys: keysWhere((a) => a.risk !== 'destructive'),
    requiresGlobalAdmin: false,
    highlights: [
      'Reads everything you can read',
      'Creates, updates and runs things',
      'Never deletes or cancels',
    ],
  },
  {
    id: 'full_mcp_admin',
    label: 'Full MCP admin',
    description:
      'The full current action catalogue, destructive actions included. Only a global admin may assign it.',
    // Every action of the catalogue, the always-allowed profile included (DECISIONS.md, OAuth hardening).
    actionKeys: ACTIONS.map((a) => a.key),
    requiresGlobalAdmin: true,
    highlights: ['Every action, deletes included', 'Requires a global admin'],
  },
];

const GROUPS_BY_ID = new Map<string, PermissionPreset>(PERMISSION_GROUPS.map((g) => [g.id, g]));

export function findPermissionGroup(id: string): PermissionPreset | undefined {
  return GROUPS_BY_ID.get(id);
}

/** Whether a person may assign the group: the global-admin ones only a global admin. */
export function canAssignGroup(group: PermissionGroup, isGlobalAdmin: boolean): boolean {
  return !group.requiresGlobalAdmin || isGlobalAdmin;
}

/**
 * The actions a person who is not a global admin may grant one by one: those of the
 * groups they may assign, so an explicit list never reaches past them (listing every
 * action would otherwise be full_mcp_admin by another name). The always-allowed
 * profile too, since granting it grants nothing.
 */
const GRANTABLE_WITHOUT_GLOBAL_ADMIN: ReadonlySet<string> = new Set([
  ...ACTIONS.filter((a) => a.alwaysAllowed).map((a) => a.key),
  ...PERMISSION_GROUPS.filter((g) => canAssignGroup(g, false)).flatMap((g) => g.actionKeys),
]);

/** Whether only a global admin may grant this action explicitly. */
export function needsGlobalAdminToGrant(actionKey: string): boolean {
  return !GRANTABLE_WITHOUT_GLOBAL_ADMIN.has(actionKey);
}

/** The catalogue as the agents module receives it (ServiceDeps.catalogue). */
export const ACTION_CATALOGUE: ActionCatalogue = {
  actions: ACTIONS,
  findAction,
  permissionGroups: PERMISSION_GROUPS,
  findPermissionGroup,
  canAssignGroup,
  needsGlobalAdminToGrant,
};
