import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { rangeQuery, resourceAvailability, typeAvailability } from './schemas.js';
import type { AvailabilityService } from './service.js';

/** MCP tools of availability: free time in the owner's active organisation, in its time zone. */
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
    run: (availability: AvailabilityService, actor, { resourceTypeId, ...range }) =>
      availability.typeAvailability(actor, resourceTypeId, range),
  }),
];
