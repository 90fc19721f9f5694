import type { Id, Timestamp } from '../../db/column-types.js';

/**
 * A household inventory item: private to `ownerId` while `groupId` is null,
 * otherwise readable and writable by every member of that people group.
 */
export interface HouseholdItemsTable {
  id: Id;
  /** The user who created the item (the private owner while it is not shared). */
  ownerId: number;
  groupId: number | null;
  name: string;
  quantity: number;
  unit: string | null;
  location: string | null;
  expiresAt: Timestamp | null;
  notes: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface HouseholdTables {
  householdItems: HouseholdItemsTable;
}
