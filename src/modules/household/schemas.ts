import { z } from 'zod';
import { entityId, pageQuery, positiveId } from '../../http/schemas.js';
import { instant } from '../events/schemas.js';

export const QUANTITY_MAX = 1_000_000_000;

const name = z.string().trim().min(1).max(200);
const quantity = z.number().finite().min(0).max(QUANTITY_MAX);
const unit = z.string().trim().max(50).nullable().describe('e.g. kg, l, pcs; "" or null for none');
const location = z.string().trim().max(200).nullable().describe('e.g. Fridge, Pantry; "" or null for none');
const notes = z.string().max(2000).nullable();
const groupId = entityId
  .nullable()
  .describe('A people group you belong to: every member may read and change the item. null: private');

export const createItemBody = z.strictObject({
  name,
  quantity: quantity.optional().describe('Default 1'),
  unit: unit.optional(),
  location: location.optional(),
  expiresAt: instant.nullable().optional(),
  notes: notes.optional(),
  groupId: groupId.optional().describe('Default null (private to you)'),
});
export type CreateItemInput = z.infer<typeof createItemBody>;

export const updateItemBody = z.strictObject({
  name: name.optional(),
  quantity: quantity.optional(),
  unit: unit.optional(),
  location: location.optional(),
  expiresAt: instant.nullable().optional(),
  notes: notes.optional(),
  groupId: groupId.optional().describe('Share, move or make private: only the member who created the item'),
});
export type UpdateItemInput = z.infer<typeof updateItemBody>;

export const householdItem = z.object({
  id: z.number().int(),
  name: z.string(),
  quantity: z.number(),
  unit: z.string().nullable(),
  location: z.string().nullable(),
  expiresAt: z.string().nullable(),
  notes: z.string().nullable(),
  groupId: z.number().int().nullable().describe('The people group sharing the item; null when private'),
  ownerId: z.number().int().describe('Who created the item'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type HouseholdItem = z.infer<typeof householdItem>;

export const listItemsQuery = z.strictObject({
  location: z.string().trim().min(1).max(200).optional().describe('Exactly this location (any case)'),
  expiringBefore: instant.optional().describe('Items with an expiry before this'),
  groupId: positiveId.optional().describe('Only the items shared with this group'),
  ...pageQuery,
});
export type ListItemsQuery = z.infer<typeof listItemsQuery>;
