import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import type { Actor } from '../../lib/actor.js';
import { defineTool } from '../../mcp/types.js';
import { scheduleTimezone, withScheduleTimezone } from '../../scheduling/schemas.js';
import {
  createResourceTypeBody,
  resourceType,
  resourceTypeAnswer,
  updateResourceTypeBody,
} from './schemas.js';
import type { ResourceTypesService } from './service.js';

const resourceTypeRef = { resourceTypeId: entityId };

/** What the pricing tool answers of a resource type. */
const pricing = resourceType.pick({
  id: true,
  name: true,
  pricingEnabled: true,
  priceAmount: true,
  priceCurrency: true,
  paymentRequired: true,
});

/** A resource type as the tools answer it: with the zone its schedule's local times are in. */
const zonedType = withScheduleTimezone(resourceTypeAnswer);

/** `answer` with the zone of the organisation beside it (read after it: a refusal stays the answer's own). */
async function zoned<T extends object>(
  resourceTypes: ResourceTypesService,
  actor: Actor,
  answer: Promise<T>,
) {
  const value = await answer;
  return { ...value, timezone: await resourceTypes.organisationTimezone(actor) };
}

/** MCP tools of resource types (and their pricing), in the owner's active organisation with the owner's role. */
export const resourceTypeTools = [
  defineTool({
    actionKey: 'resourceTypes.list',
    title: 'List resource types',
    description: 'Resource types of your active organisation (any member).',
    catalogue: {
      description: 'Resource types of the active organisation.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject({}),
    output: z.object({ timezone: scheduleTimezone, resourceTypes: z.array(resourceTypeAnswer) }),
    run: (resourceTypes: ResourceTypesService, actor) =>
      zoned(
        resourceTypes,
        actor,
        resourceTypes.list(actor).then((list) => ({ resourceTypes: list })),
      ),
  }),
  defineTool({
    actionKey: 'resourceTypes.get',
    title: 'Read resource type',
    description:
      'One resource type of your active organisation: booking mode, durations, schedule policy, booking rules and pricing.',
    catalogue: {
      description: 'One resource type of the active organisation.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(resourceTypeRef),
    output: zonedType,
    run: (resourceTypes: ResourceTypesService, actor, { resourceTypeId }) =>
      zoned(resourceTypes, actor, resourceTypes.get(actor, resourceTypeId)),
  }),
  defineTool({
    actionKey: 'resourceTypes.create',
    title: 'Create resource type',
    description:
      'A new resource type in your active organisation (OWNER, ADMIN or MANAGER). Durations are in minutes, priceAmount in minor units; a price needs pricingEnabled, paymentRequired needs a price. bookingRules (each optional) limit every booking: minimum notice, how far ahead, cancel and reschedule notice, bookings per customer per day.',
    catalogue: {
      description: 'A new resource type (OWNER, ADMIN or MANAGER).',
      risk: 'write',
      scopeKinds: [],
    },
    input: createResourceTypeBody,
    output: zonedType,
    run: (resourceTypes: ResourceTypesService, actor, input) =>
      zoned(resourceTypes, actor, resourceTypes.create(actor, input)),
  }),
  defineTool({
    actionKey: 'resourceTypes.update',
    title: 'Update resource type',
    description:
      'Changes the fields given of a resource type of your active organisation (OWNER, ADMIN or MANAGER); isActive false stops its booking; bookingRules replaces the rules as a whole (null removes them).',
    catalogue: {
      description: 'Changes a resource type (OWNER, ADMIN or MANAGER).',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...resourceTypeRef, ...updateResourceTypeBody.shape }),
    output: zonedType,
    run: (resourceTypes: ResourceTypesService, actor, { resourceTypeId, ...changes }) =>
      zoned(resourceTypes, actor, resourceTypes.update(actor, resourceTypeId, changes)),
  }),
  defineTool({
    actionKey: 'resourceTypes.delete',
    title: 'Delete resource type',
    description:
      'Deletes a resource type of your active organisation (OWNER, ADMIN or MANAGER); one that still has resources fails with RESOURCE_TYPE_IN_USE.',
    catalogue: {
      description: 'Deletes a resource type without resources.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(resourceTypeRef),
    output: z.object({ deleted: z.literal(true) }),
    run: async (resourceTypes: ResourceTypesService, actor, { resourceTypeId }) => {
      await resourceTypes.remove(actor, resourceTypeId);
      return { deleted: true as const };
    },
  }),
  defineTool({
    actionKey: 'pricing.read',
    title: 'Read pricing',
    description:
      'The price of a resource type of your active organisation: whether pricing is on, the amount in minor units, the currency and whether payment is required to confirm a booking.',
    catalogue: {
      description: 'Price, currency and payment requirement of a resource type.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(resourceTypeRef),
    output: pricing,
    run: async (resourceTypes: ResourceTypesService, actor, { resourceTypeId }) =>
      pricing.parse(await resourceTypes.get(actor, resourceTypeId)),
  }),
];
