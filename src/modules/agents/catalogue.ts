import { type ActionRisk, PROFILE_ACTION } from '../../mcp/types.js';

/**
 * The action catalogue: every action the MCP runtime offers, the one list the
 * permission screens, the presets and the runtime all read. Each action becomes
 * the MCP tool named by its key with `.` replaced by `_`, and calls the one
 * service method named in the comment beside it, as the agent's owner, within
 * the scope of the agent's permission for that action.
 *
 * `scopeKinds` names the scope an owner may narrow the action with: `calendar`
 * (scope.calendarIds) and `userGroup` (scope.groupIds), as src/lib/actor.ts
 * applies them. Reads of calendars and events take both, since a calendar shared
 * through a group counts only through groups in scope; writes of calendars and
 * events need ownership, so only the calendar kind narrows them.
 */
export type ScopeKind = 'calendar' | 'userGroup';

export interface CatalogueAction {
  key: string;
  title: string;
  description: string;
  risk: ActionRisk;
  scopeKinds: readonly ScopeKind[];
  /** Every agent has it, whatever its permissions: granting it (full_mcp_admin lists it) changes nothing. */
  alwaysAllowed: boolean;
}

const CAL = ['calendar'] as const;
const GROUP = ['userGroup'] as const;
const CAL_GROUP = ['calendar', 'userGroup'] as const;
const NONE = [] as const;

function action(
  key: string,
  risk: ActionRisk,
  scopeKinds: readonly ScopeKind[],
  title: string,
  description: string,
): CatalogueAction {
  return { key, title, description, risk, scopeKinds, alwaysAllowed: false };
}

export const ACTIONS: readonly CatalogueAction[] = [
  // Agent and user context
  {
    // agents.profile (the calling agent's own record)
    ...action(
      PROFILE_ACTION,
      'read',
      NONE,
      'Agent profile',
      'This agent: its name, status and permissions. Always available; call it to check what you may do before writing.',
    ),
    alwaysAllowed: true,
  },
  // auth.me
  action(
    'user.profile.read',
    'read',
    NONE,
    'Read user profile',
    "The owner's name, email, plan and active organisation.",
  ),

  // Organisation context
  // organisations.list
  action(
    'organisation.list',
    'read',
    NONE,
    'List organisations',
    "The owner's organisations with role and active state.",
  ),
  // organisations.get
  action(
    'organisation.get',
    'read',
    NONE,
    'Read organisation',
    'One organisation of the owner, with its schedule policy.',
  ),
  // organisations.listMembers
  action(
    'organisation.members.list',
    'read',
    NONE,
    'List organisation members',
    'Members and roles of one organisation of the owner.',
  ),

  // Calendars
  // calendars.list
  action(
    'calendar.list',
    'read',
    CAL_GROUP,
    'List calendars',
    'Own calendars and calendars shared through people groups.',
  ),
  // calendars.get
  action('calendar.get', 'read', CAL_GROUP, 'Read calendar', 'One calendar the owner can read.'),
  // calendars.create
  action(
    'calendar.create',
    'write',
    CAL,
    'Create calendar',
    'A new calendar of the owner (not available to calendar-scoped agents).',
  ),
  // calendars.update
  action(
    'calendar.update',
    'write',
    CAL,
    'Update calendar',
    'Rename, recolour or change the time zone of an own calendar.',
  ),
  // calendars.delete
  action(
    'calendar.delete',
    'destructive',
    CAL,
    'Delete calendar',
    'Deletes an own calendar with all of its events.',
  ),

  // Events
  // events.listOccurrences
  action(
    'calendar.events.read',
    'read',
    CAL_GROUP,
    'Read events',
    'Event occurrences of a calendar within a range (from, to).',
  ),
  // events.get
  action(
    'calendar.events.get',
    'read',
    CAL_GROUP,
    'Read event',
    'One event with its recurrence and reminders.',
  ),
  // events.create
  action('calendar.events.create', 'write', CAL, 'Create event', 'A new event in an own calendar.'),
  // events.update
  action('calendar.events.update', 'write', CAL, 'Update event', 'Changes an event of an own calendar.'),
  // events.delete
  action(
    'calendar.events.delete',
    'destructive',
    CAL,
    'Delete event',
    'Deletes an event (every occurrence) of an own calendar.',
  ),

  // People groups (SPEC.md's keys and risks)
  // userGroups.list
  action(
    'calendar.userGroups.list',
    'read',
    GROUP,
    'List people groups',
    'The people groups the owner belongs to.',
  ),
  // userGroups.details
  action(
    'calendar.userGroups.details',
    'read',
    GROUP,
    'People group details',
    'Members and shared calendars of one group.',
  ),
  // userGroups.createInvite
  action(
    'calendar.userGroups.createInvite',
    'write',
    GROUP,
    'Create group invite',
    'A single-use invite token for a group the owner owns; names no member.',
  ),
  // userGroups.acceptInvite
  action(
    'calendar.userGroups.acceptInvite',
    'write',
    GROUP,
    'Accept group invite',
    'Joins the group of an invite token.',
  ),
  // userGroups.attachCalendars
  action(
    'calendar.userGroups.attachCalendars',
    'write',
    ['userGroup', 'calendar'],
    'Share calendars with group',
    'Shares own calendars with a group.',
  ),
  // userGroups.detachCalendars
  action(
    'calendar.userGroups.detachCalendars',
    'write',
    ['userGroup', 'calendar'],
    'Unshare calendars from group',
    'Stops sharing own calendars with a group.',
  ),

  // Tasks
  // tasks.list
  action(
    'tasks.list',
    'read',
    NONE,
    'List tasks',
    'Tasks by due date, filtered by status, label, due range or text, one page at a time.',
  ),
  // tasks.get
  action('tasks.get', 'read', NONE, 'Read task', 'One task with labels, checklist and blockers.'),
  // tasks.create
  action('tasks.create', 'write', NONE, 'Create task', 'A new task, optionally with labels and checklist.'),
  // tasks.update
  action(
    'tasks.update',
    'write',
    NONE,
    'Update task',
    'Changes a task: title, notes, status, priority, due date, labels.',
  ),
  // tasks.delete
  action(
    'tasks.delete',
    'destructive',
    NONE,
    'Delete task',
    'Deletes a task with its checklist and dependencies.',
  ),

  // Task labels
  // tasks.listLabels
  action('tasks.labels.list', 'read', NONE, 'List task labels', "The owner's task labels."),
  // tasks.createLabel
  action('tasks.labels.create', 'write', NONE, 'Create task label', 'A new task label.'),
  // tasks.updateLabel
  action('tasks.labels.update', 'write', NONE, 'Update task label', 'Renames or recolours a task label.'),
  // tasks.deleteLabel
  action(
    'tasks.labels.delete',
    'destructive',
    NONE,
    'Delete task label',
    'Deletes a label and takes it off every task.',
  ),

  // Checklists
  // tasks.addChecklistItem
  action(
    'tasks.checklist.add',
    'write',
    NONE,
    'Add checklist item',
    "Adds an item at the end of a task's checklist.",
  ),
  // tasks.updateChecklistItem
  action(
    'tasks.checklist.update',
    'write',
    NONE,
    'Update checklist item',
    'Changes the text, done state or position of a checklist item.',
  ),
  // tasks.deleteChecklistItem
  action(
    'tasks.checklist.delete',
    'destructive',
    NONE,
    'Delete checklist item',
    "Removes an item from a task's checklist.",
  ),

  // Dependencies
  // tasks.addDependency
  action(
    'tasks.dependencies.add',
    'write',
    NONE,
    'Add task dependency',
    'Makes a task wait for another (refused when it would close a cycle).',
  ),
  // tasks.removeDependency
  action(
    'tasks.dependencies.remove',
    'destructive',
    NONE,
    'Remove task dependency',
    'Removes a dependency between two tasks.',
  ),

  // Routines
  // routines.list
  action('routines.list', 'read', NONE, 'List routines', 'Recurring routines and their task templates.'),
  // routines.get
  action('routines.get', 'read', NONE, 'Read routine', 'One routine with its task templates.'),
  // routines.create
  action(
    'routines.create',
    'write',
    NONE,
    'Create routine',
    'A new routine with a recurrence and task templates.',
  ),
  // routines.update
  action('routines.update', 'write', NONE, 'Update routine', 'Changes a routine.'),
  // routines.run
  action(
    'routines.run',
    'write',
    NONE,
    'Run routine',
    'Creates the tasks of one occurrence of a routine (once per occurrence).',
  ),
  // routines.delete
  action('routines.delete', 'destructive', NONE, 'Delete routine', 'Deletes a routine; its tasks stay.'),

  // Household inventory
  // household.list
  action(
    'household.items.list',
    'read',
    GROUP,
    'List household items',
    'Household items by expiry, filtered by location, expiry or group.',
  ),
  // household.get
  action('household.items.get', 'read', GROUP, 'Read household item', 'One household item.'),
  // household.create
  action(
    'household.items.create',
    'write',
    GROUP,
    'Create household item',
    'A new household item, private or shared with a group.',
  ),
  // household.update
  action(
    'household.items.update',
    'write',
    GROUP,
    'Update household item',
    'Changes quantity, location, expiry or sharing of an item.',
  ),
  // household.delete
  action(
    'household.items.delete',
    'destructive',
    GROUP,
    'Delete household item',
    'Deletes a household item.',
  ),

  // Automation rules and audit
  // automation.listRules
  action('automation.rules.list', 'read', CAL, 'List automation rules', "The owner's automation rules."),
  // automation.getRule
  action('automation.rules.get', 'read', CAL, 'Read automation rule', 'One automation rule.'),
  // automation.createRule
  action(
    'automation.rules.create',
    'write',
    CAL,
    'Create automation rule',
    'A new rule: trigger, conditions, actions.',
  ),
  // automation.updateRule
  action(
    'automation.rules.update',
    'write',
    CAL,
    'Update automation rule',
    'Changes or enables/disables a rule.',
  ),
  // automation.deleteRule
  action(
    'automation.rules.delete',
    'destructive',
    CAL,
    'Delete automation rule',
    'Deletes a rule; its audit entries stay.',
  ),
  // automation.trigger
  action(
    'automation.rules.trigger',
    'write',
    CAL,
    'Run automation rule',
    'Runs a rule now, optionally on an event or task.',
  ),
  // automation.listAudit
  action(
    'automation.audit.list',
    'read',
    CAL,
    'Read automation audit',
    'What rules did, newest first, one page at a time.',
  ),
  // automation.listEventTags
  action(
    'automation.eventTags.list',
    'read',
    CAL,
    'Read event tags',
    'Tags automation rules put on an event.',
  ),

  // Resource types (active organisation)
  // resourceTypes.list
  action(
    'resourceTypes.list',
    'read',
    NONE,
    'List resource types',
    'Resource types of the active organisation.',
  ),
  // resourceTypes.get
  action(
    'resourceTypes.get',
    'read',
    NONE,
    'Read resource type',
    'One resource type of the active organisation.',
  ),
  // resourceTypes.create
  action(
    'resourceTypes.create',
    'write',
    NONE,
    'Create resource type',
    'A new resource type (OWNER, ADMIN or MANAGER).',
  ),
  // resourceTypes.update
  action(
    'resourceTypes.update',
    'write',
    NONE,
    'Update resource type',
    'Changes a resource type (OWNER, ADMIN or MANAGER).',
  ),
  // resourceTypes.remove
  action(
    'resourceTypes.delete',
    'destructive',
    NONE,
    'Delete resource type',
    'Deletes a resource type without resources.',
  ),

  // Resources (active organisation)
  // resources.list
  action(
    'resources.list',
    'read',
    NONE,
    'List resources',
    'Resources of the active organisation, in parent/lane order.',
  ),
  // resources.get
  action('resources.get', 'read', NONE, 'Read resource', 'One resource of the active organisation.'),
  // resources.schedule
  action(
    'resources.schedule.read',
    'read',
    NONE,
    'Read resource schedule',
    'The effective schedule of a resource and where each part comes from.',
  ),
  // resources.create
  action('resources.create', 'write', NONE, 'Create resource', 'A new resource (OWNER, ADMIN or MANAGER).'),
  // resources.update
  action(
    'resources.update',
    'write',
    NONE,
    'Update resource',
    'Changes a resource, its capacity lanes included.',
  ),
  // resources.remove
  action(
    'resources.delete',
    'destructive',
    NONE,
    'Delete resource',
    'Deletes a resource without capacity lanes.',
  ),
  // resources.removeWithLanes
  action(
    'resources.deleteWithLanes',
    'destructive',
    NONE,
    'Delete resource with lanes',
    'Deletes a parent resource and its capacity lanes.',
  ),

  // Availability
  // availability.resourceAvailability
  action(
    'availability.resource.read',
    'read',
    NONE,
    'Resource availability',
    'Free windows or slots of a resource within a range.',
  ),
  // availability.typeAvailability
  action(
    'availability.resourceType.read',
    'read',
    NONE,
    'Resource type availability',
    'Free windows or slots of a resource type (pool and/or resources).',
  ),

  // Pricing
  // resourceTypes.get (the tool answers the type's pricing fields only)
  action(
    'pricing.read',
    'read',
    NONE,
    'Read pricing',
    'Price, currency and payment requirement of a resource type.',
  ),

  // Reservations (active organisation)
  // reservations.list
  action(
    'reservations.list',
    'read',
    NONE,
    'List reservations',
    'Reservations of the active organisation, filtered, one page at a time.',
  ),
  // reservations.get
  action('reservations.get', 'read', NONE, 'Read reservation', 'One reservation of the active organisation.'),
  // reservations.create
  action(
    'reservations.create',
    'write',
    NONE,
    'Create reservation',
    'Books a resource or a pool slot; price comes from the resource type.',
  ),
  // reservations.cancel (cannot be undone; the time is freed at once)
  action(
    'reservations.cancel',
    'destructive',
    NONE,
    'Cancel reservation',
    'Cancels a reservation; this cannot be undone.',
  ),
];

const BY_KEY = new Map(ACTIONS.map((a) => [a.key, a]));

export function findAction(key: string): CatalogueAction | undefined {
  return BY_KEY.get(key);
}

/** The risk of an action, for the MCP tool annotations; an action missing from the catalogue counts as a write. */
export function riskOf(key: string): ActionRisk {
  return BY_KEY.get(key)?.risk ?? 'write';
}

/** Keys an owner grants (the always-allowed profile needs no grant). */
const grantable = ACTIONS.filter((a) => !a.alwaysAllowed);
const keysWhere = (test: (a: CatalogueAction) => boolean) => grantable.filter(test).map((a) => a.key);
const keysStartingWith = (...prefixes: string[]) =>
  keysWhere((a) => prefixes.some((prefix) => a.key.startsWith(prefix)));

export interface PermissionGroup {
  id: PermissionGroupId;
  label: string;
  description: string;
  actionKeys: readonly string[];
  requiresGlobalAdmin: boolean;
  highlights: readonly string[];
}

export const PERMISSION_GROUP_IDS = [
  'minimal',
  'all_read_only',
  'calendar_only',
  'tasks_and_routines',
  'reservations_operator',
  'automation_manager',
  'household_manager',
  'operational_read_write',
  'full_mcp_admin',
] as const;
export type PermissionGroupId = (typeof PERMISSION_GROUP_IDS)[number];

const CALENDAR_READS = ['calendar.list', 'calendar.get', 'calendar.events.read', 'calendar.events.get'];

/** SPEC.md's nine presets. Assigning one materialises `actionKeys` (unscoped) as the agent's permissions. */
export const PERMISSION_GROUPS: readonly PermissionGroup[] = [
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
      'Checks availability and pricing and creates reservations in your active organisation; lists resource types and resources to name what it books.',
    actionKeys: [
      'resourceTypes.list',
      'resources.list',
      ...keysStartingWith('availability.', 'pricing.'),
      'reservations.create',
    ],
    requiresGlobalAdmin: false,
    highlights: ['Reads availability and prices', 'Creates reservations', 'Cannot cancel reservations'],
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

const GROUPS_BY_ID = new Map<string, PermissionGroup>(PERMISSION_GROUPS.map((g) => [g.id, g]));

export function findPermissionGroup(id: string): PermissionGroup | undefined {
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
