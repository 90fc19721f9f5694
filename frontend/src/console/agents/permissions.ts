// An agent's permissions as the form holds them (a preset, or actions chosen one by one with one
// scope of each kind), the body the API takes for them, and their summary in words.
import type { Agent, Catalog, PermissionGroup, PermissionsBody, PresetId } from '../../api/types.js';

export interface PermissionChoice {
  mode: 'preset' | 'actions';
  preset: string;
  actions: string[];
  calendars: 'all' | 'some';
  calendarIds: number[];
  groups: 'all' | 'some';
  groupIds: number[];
}

const AREA_WORDS: Record<string, string> = {
  agent: 'Agent',
  user: 'Your profile',
  organisation: 'Organisations',
  calendar: 'Calendars and events',
  tasks: 'Tasks',
  routines: 'Routines',
  household: 'Household',
  automation: 'Automation',
  resourceTypes: 'Resource types',
  resources: 'Resources',
  availability: 'Availability',
  pricing: 'Pricing',
  reservations: 'Reservations',
  approvals: 'Approvals',
  time: 'Time',
};

export const areaWords = (area: string) => AREA_WORDS[area] ?? area;

/** The form's starting point: the agent's permissions, or the first preset the person may assign. */
export function choiceOf(agent: Agent | undefined, groups: PermissionGroup[]): PermissionChoice {
  const firstAssignable = groups.find((g) => g.canAssign)?.id ?? '';
  const scoped = (kind: 'calendarIds' | 'groupIds') =>
    agent?.permissions.find((p) => p.scope?.[kind] !== undefined)?.scope?.[kind];
  const calendarIds = scoped('calendarIds');
  const groupIds = scoped('groupIds');
  return {
    mode: agent && agent.permissionGroupId === null ? 'actions' : 'preset',
    preset: agent?.permissionGroupId ?? firstAssignable,
    actions: agent ? agent.permissions.map((p) => p.actionKey) : [],
    calendars: calendarIds ? 'some' : 'all',
    calendarIds: calendarIds ?? [],
    groups: groupIds ? 'some' : 'all',
    groupIds: groupIds ?? [],
  };
}

/** Whether the agent's own scopes differ between its actions (the form shows one of each kind). */
export function scopesDiffer(agent: Agent): boolean {
  const seen = { calendarIds: new Set<string>(), groupIds: new Set<string>() };
  for (const p of agent.permissions) {
    if (p.scope?.calendarIds) seen.calendarIds.add(JSON.stringify([...p.scope.calendarIds].sort()));
    if (p.scope?.groupIds) seen.groupIds.add(JSON.stringify([...p.scope.groupIds].sort()));
  }
  return seen.calendarIds.size > 1 || seen.groupIds.size > 1;
}

/** The body of PUT /api/agents/{id}/permissions for a choice. */
export function permissionsBody(choice: PermissionChoice, catalog: Catalog): PermissionsBody {
  if (choice.mode === 'preset') return { permissionGroupId: choice.preset as PresetId };
  const byKey = new Map(catalog.actions.map((a) => [a.key, a]));
  return {
    permissions: choice.actions
      .filter((key) => !byKey.get(key)?.alwaysAllowed)
      .map((actionKey) => {
        const kinds = byKey.get(actionKey)?.scopeKinds ?? [];
        const scope: { calendarIds?: number[]; groupIds?: number[] } = {};
        if (kinds.includes('calendar') && choice.calendars === 'some') scope.calendarIds = choice.calendarIds;
        if (kinds.includes('userGroup') && choice.groups === 'some') scope.groupIds = choice.groupIds;
        return { actionKey, scope: Object.keys(scope).length ? scope : null };
      }),
  };
}

/** Actions the person may grant one by one: those of the presets they may assign. */
export function grantableKeys(groups: PermissionGroup[]): Set<string> {
  return new Set(groups.filter((g) => g.canAssign).flatMap((g) => g.actionKeys));
}

/** "Reservations operator" for a preset id, "12 chosen actions" otherwise. */
export function permissionsSummary(agent: Agent, groups: PermissionGroup[] | undefined): string {
  if (agent.permissionGroupId) {
    const label = groups?.find((g) => g.id === agent.permissionGroupId)?.label ?? agent.permissionGroupId;
    return `Preset: ${label}`;
  }
  const n = agent.permissions.length;
  const scoped = agent.permissions.some((p) => p.scope);
  return `${n} chosen ${n === 1 ? 'action' : 'actions'}${scoped ? ', scoped' : ''}`;
}
