import { entityId } from '../../http/schemas.js';
import { SLOT_PICKER_URI } from '../../mcp/apps.js';
import { defineTool } from '../../mcp/types.js';
import { explainQuery, explanation, rangeQuery, resourceAvailability, typeAvailability } from './schemas.js';
import type { AvailabilityService } from './service.js';

/**
 * MCP tools of availability: free time in the owner's active organisation, in its time zone.
 * Hosts that show MCP Apps show their answers in the slot picker, which books the slot picked.
 */
export const availabilityTools = [
  defineTool({
    actionKey: 'availability.resource.read',
    title: 'Resource availability',
    description:
      'Free windows (continuous mode) or slots (shifts mode) of a resource of your active organisation between from and to (at most 62 days); a parent answers for its capacity lanes with the number free.',
    catalogue: {
      description: 'Free windows or slots of a resource within a range.',
      risk: 'read',
      scopeKinds: [],
    },
    // safeExtend keeps the range checks (to after from, at most 62 days).
    input: rangeQuery.safeExtend({ resourceId: entityId }),
    output: resourceAvailability,
    app: SLOT_PICKER_URI,
    run: (availability: AvailabilityService, actor, { resourceId, ...range }) =>
      availability.resourceAvailability(actor, resourceId, range),
  }),
  defineTool({
    actionKey: 'availability.resourceType.read',
    title: 'Resource type availability',
    description:
      'Free windows or slots of a resource type of your active organisation between from and to (at most 62 days), by its booking mode: pooled over its resources, per resource, or both.',
    catalogue: {
      description: 'Free windows or slots of a resource type (pool and/or resources).',
      risk: 'read',
      scopeKinds: [],
    },
    input: rangeQuery.safeExtend({ resourceTypeId: entityId }),
    output: typeAvailability,
    app: SLOT_PICKER_URI,
    run: (availability: AvailabilityService, actor, { resourceTypeId, ...range }) =>
      availability.typeAvailability(actor, resourceTypeId, range),
  }),
  defineTool({
    actionKey: 'availability.explain',
    title: 'Explain availability',
    description:
      "Why a time (startTime..endTime, at most 31 days) can or cannot be booked on a resource (resourceId) or on each resource of a resource type (resourceTypeId) of your active organisation, as availability and booking judge it: each reason (OUTSIDE_HOURS, CLOSED_DAY, INACTIVE, NOTICE, ADVANCE, BOOKED, HELD, BUFFER, CALENDAR_BUSY, DAILY_CAP, TOO_SHORT, OFF_GRID) with the part of the time it covers (from, to); never what a calendar event is or whose. For OWNER, ADMIN or MANAGER. The reasons of a refused booking's SLOT_UNAVAILABLE are the same, in error.details.",
    catalogue: {
      description: 'Why a time can or cannot be booked on a resource or resource type.',
      risk: 'read',
      scopeKinds: [],
    },
    input: explainQuery
      .safeExtend({ resourceId: entityId.optional(), resourceTypeId: entityId.optional() })
      .refine((input) => (input.resourceId === undefined) !== (input.resourceTypeId === undefined), {
        path: ['resourceId'],
        message: 'give either resourceId or resourceTypeId',
      }),
    output: explanation,
    app: SLOT_PICKER_URI,
    run: (availability: AvailabilityService, actor, { resourceId, resourceTypeId, ...query }) =>
      resourceId !== undefined
        ? availability.resourceExplanation(actor, resourceId, query)
        : availability.typeExplanation(actor, resourceTypeId!, query),
  }),
];
