import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { createItemBody, householdItem, listItemsQuery, updateItemBody } from './schemas.js';
import type { HouseholdService } from './service.js';

const itemRef = { itemId: entityId };

/** MCP tools of the household inventory: private items and those of people groups within the agent's group scope. */
export const householdTools = [
  defineTool({
    actionKey: 'household.items.list',
    title: 'List household items',
    description:
      'Your private household items and those shared with your people groups (or one group with groupId), soonest expiry first (undated last), one page at a time: pass nextCursor as cursor for the next page.',
    catalogue: {
      description: 'Household items by expiry, filtered by location, expiry or group.',
      risk: 'read',
      scopeKinds: ['userGroup'],
    },
    input: listItemsQuery,
    output: page(householdItem),
    run: (household: HouseholdService, actor, query) => household.list(actor, query),
  }),
  defineTool({
    actionKey: 'household.items.get',
    title: 'Read household item',
    description: 'One household item of yours or of one of your people groups.',
    catalogue: {
      description: 'One household item.',
      risk: 'read',
      scopeKinds: ['userGroup'],
    },
    input: z.strictObject(itemRef),
    output: householdItem,
    run: (household: HouseholdService, actor, { itemId }) => household.get(actor, itemId),
  }),
  defineTool({
    actionKey: 'household.items.create',
    title: 'Create household item',
    description:
      'A new household item, private (default) or shared with a people group you belong to (groupId). expiresAt is an ISO 8601 date-time with Z or an offset.',
    catalogue: {
      description: 'A new household item, private or shared with a group.',
      risk: 'write',
      scopeKinds: ['userGroup'],
    },
    input: createItemBody,
    output: householdItem,
    run: (household: HouseholdService, actor, input) => household.create(actor, input),
  }),
  defineTool({
    actionKey: 'household.items.update',
    title: 'Update household item',
    description:
      'Changes the given fields of an item; any group member may. Changing groupId (share, move, make private with null) is for its creator only (FORBIDDEN otherwise).',
    catalogue: {
      description: 'Changes quantity, location, expiry or sharing of an item.',
      risk: 'write',
      scopeKinds: ['userGroup'],
    },
    input: z.strictObject({ ...itemRef, ...updateItemBody.shape }),
    output: householdItem,
    run: (household: HouseholdService, actor, { itemId, ...changes }) =>
      household.update(actor, itemId, changes),
  }),
  defineTool({
    actionKey: 'household.items.delete',
    title: 'Delete household item',
    description: 'Deletes a household item of yours or of one of your people groups.',
    catalogue: {
      description: 'Deletes a household item.',
      risk: 'destructive',
      scopeKinds: ['userGroup'],
    },
    input: z.strictObject(itemRef),
    output: z.object({ deleted: z.literal(true) }),
    run: async (household: HouseholdService, actor, { itemId }) => {
      await household.delete(actor, itemId);
      return { deleted: true as const };
    },
  }),
];
