import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import type { Actor } from '../../lib/actor.js';
import { defineTool } from '../../mcp/types.js';
import { scheduleTimezone, withScheduleTimezone } from '../../scheduling/schemas.js';
import {
  createResourceBody,
  effectiveSchedule,
  listResourcesQuery,
  resource,
  updateResourceBody,
} from './schemas.js';
import type { ResourcesService } from './service.js';

const resourceRef = { resourceId: entityId };
const deleted = z.object({ deleted: z.literal(true) });
/** A resource as the tools answer it: with the zone its schedule's local times are in. */
const zonedResource = withScheduleTimezone(resource);

/** `answer` with the zone of the organisation beside it (read after it: a refusal stays the answer's own). */
async function zoned<T extends object>(resources: ResourcesService, actor: Actor, answer: Promise<T>) {
  const value = await answer;
  return { ...value, timezone: await resources.organisationTimezone(actor) };
}

/** MCP tools of resources, in the owner's active organisation with the owner's role. */
export const resourceTools = [
  defineTool({
    actionKey: 'resources.list',
    title: 'List resources',
    description:
      'Resources of your active organisation, optionally of one resource type; each parent is followed by its capacity lanes.',
    catalogue: {
      description: 'Resources of the active organisation, in parent/lane order.',
      risk: 'read',
      scopeKinds: [],
    },
    input: listResourcesQuery,
    output: z.object({ timezone: scheduleTimezone, resources: z.array(resource) }),
    run: (resources: ResourcesService, actor, filter) =>
      zoned(
        resources,
        actor,
        resources.list(actor, filter).then((list) => ({ resources: list })),
      ),
  }),
  defineTool({
    actionKey: 'resources.get',
    title: 'Read resource',
    description: 'One resource (or capacity lane) of your active organisation.',
    catalogue: {
      description: 'One resource of the active organisation.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(resourceRef),
    output: zonedResource,
    run: (resources: ResourcesService, actor, { resourceId }) =>
      zoned(resources, actor, resources.get(actor, resourceId)),
  }),
  defineTool({
    actionKey: 'resources.schedule.read',
    title: 'Read resource schedule',
    description:
      'The effective schedule of a resource (availability mode, operating hours, shifts, date overrides by date) and whether each part comes from the organisation, the resource type, the resource or the default.',
    catalogue: {
      description: 'The effective schedule of a resource and where each part comes from.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(resourceRef),
    output: withScheduleTimezone(effectiveSchedule),
    run: (resources: ResourcesService, actor, { resourceId }) =>
      zoned(resources, actor, resources.schedule(actor, resourceId)),
  }),
  defineTool({
    actionKey: 'resources.create',
    title: 'Create resource',
    description:
      'A new resource of a resource type in your active organisation (OWNER, ADMIN or MANAGER); capacity N above 1 creates N capacity lanes.',
    catalogue: {
      description: 'A new resource (OWNER, ADMIN or MANAGER).',
      risk: 'write',
      scopeKinds: [],
    },
    input: createResourceBody,
    output: zonedResource,
    run: (resources: ResourcesService, actor, input) =>
      zoned(resources, actor, resources.create(actor, input)),
  }),
  defineTool({
    actionKey: 'resources.update',
    title: 'Update resource',
    description:
      "Changes the fields given of a resource (OWNER, ADMIN or MANAGER); its capacity lanes follow capacity, name, type and active state. Lanes cannot be changed directly. blockOnManagerCalendars and bookingCalendarId are turned on only by the resource's manager (any role), as they reach into the manager's own calendars.",
    catalogue: {
      description: 'Changes a resource, its capacity lanes included.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...resourceRef, ...updateResourceBody.shape }),
    output: zonedResource,
    run: (resources: ResourcesService, actor, { resourceId, ...changes }) =>
      zoned(resources, actor, resources.update(actor, resourceId, changes)),
  }),
  defineTool({
    actionKey: 'resources.delete',
    title: 'Delete resource',
    description:
      'Deletes a resource without capacity lanes or future reservations (OWNER, ADMIN or MANAGER); one with lanes fails with RESOURCE_HAS_CHILD_LANES.',
    catalogue: {
      description: 'Deletes a resource without capacity lanes.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(resourceRef),
    output: deleted,
    run: async (resources: ResourcesService, actor, { resourceId }) => {
      await resources.remove(actor, resourceId);
      return { deleted: true as const };
    },
  }),
  defineTool({
    actionKey: 'resources.deleteWithLanes',
    title: 'Delete resource with lanes',
    description:
      'Deletes a parent resource together with its capacity lanes (OWNER, ADMIN or MANAGER); refused while any of them holds a future reservation.',
    catalogue: {
      description: 'Deletes a parent resource and its capacity lanes.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(resourceRef),
    output: deleted,
    run: async (resources: ResourcesService, actor, { resourceId }) => {
      await resources.removeWithLanes(actor, resourceId);
      return { deleted: true as const };
    },
  }),
];
