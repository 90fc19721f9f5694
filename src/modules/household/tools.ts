import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { createItemBody, householdItem, listItemsQuery, updateItemBody } from './schemas.js';
import type { HouseholdService } from './service.js';

const itemRef = { itemId: entityId };

/** MCP tools of the household inventory: private items and those of people groups within the agent's group scope. */
export function householdTools(household: HouseholdService) {
  return [
    defineTool({
      actionKey: 'household.items.list',
      title: 'List household items',
      description:
        'Your private household items and those shared with your people groups (or one group with groupId), soonest expiry first (undated last), one page at a time: pass nextCursor as cursor for the next page.',
      input: listItemsQuery,
      output: page(householdItem),
      run: (actor, query) => household.list(actor, query),
    }),
    defineTool({
      actionKey: 'household.items.get',
      title: 'Read household item',
      description: 'One household item of yours or of one of your people groups.',
      input: z.strictObject(itemRef),
      output: householdItem,
      run: (actor, { itemId }) => household.get(actor, itemId),
    }),
    defineTool({
      actionKey: 'household.items.create',
      title: 'Create household item',
      description:
        'A new household item, private (default) or shared with a people group you belong to (groupId). expiresAt is an ISO 8601 date-time with Z or an offset.',
      input: createItemBody,
      output: householdItem,
      run: (actor, input) => household.create(actor, input),
    }),
    defineTool({
      actionKey: 'household.items.update',
      title: 'Update household item',
      description:
        'Changes the given fields of an item; any group member may. Changing groupId (share, move, make private with null) is for its creator only (FORBIDDEN otherwise).',
      input: z.strictObject({ ...itemRef, ...updateItemBody.shape }),
      output: householdItem,
      run: (actor, { itemId, ...changes }) => household.update(actor, itemId, changes),
    }),
    defineTool({
      actionKey: 'household.items.delete',
      title: 'Delete household item',
      description: 'Deletes a household item of yours or of one of your people groups.',
      input: z.strictObject(itemRef),
      output: z.object({ deleted: z.literal(true) }),
      run: async (actor, { itemId }) => {
        await household.delete(actor, itemId);
        return { deleted: true as const };
      },
    }),
  ];
}
