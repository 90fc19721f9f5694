import type { Db } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import { type Actor, groupInScope, groupScope } from '../../lib/actor.js';
import { forbidden, invalidCursor, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { checkInstant } from '../tasks/service.js';
import type { UserGroupService } from '../user-groups/service.js';
import { createHouseholdRepo, type ItemRow, type ItemValues, toItem } from './repo.js';
import {
  type CreateItemInput,
  type HouseholdItem,
  type ListItemsQuery,
  QUANTITY_MAX,
  type UpdateItemInput,
} from './schemas.js';

const invalid = (path: string, message: string) =>
  validationFailed(`Invalid item: ${path}: ${message}`, [{ path, message }]);

/** Trimmed text, with "" meaning none. */
const optionalText = (value: string | null | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw invalid('name', 'must be 1..200 characters');
  return trimmed;
}

function checkQuantity(quantity: number): number {
  if (!Number.isFinite(quantity) || quantity < 0 || quantity > QUANTITY_MAX)
    throw invalid('quantity', `must be 0..${QUANTITY_MAX}`);
  return quantity;
}

export type HouseholdService = ReturnType<typeof createHouseholdService>;

/**
 * Household inventory (`household_manager`). An item is private to the user who
 * created it, or shared with a people group: then every current member reads and
 * changes it (its creator too, only while a member), and leaving the group loses
 * access. The agent scope's `groupIds` limits shared items to those groups; private
 * items are not group data and stay visible. Items belong to no calendar, so
 * `calendarIds` does not narrow them. Anything else answers 404.
 */
export function createHouseholdService({ db, userGroups }: { db: Db; userGroups: UserGroupService }) {
  const repo = createHouseholdRepo(db.kysely);

  /** Whether the actor may use the group: inside their scope and a member (one query). */
  async function canUseGroup(actor: Actor, groupId: number): Promise<boolean> {
    return groupInScope(actor, groupId) && (await userGroups.isMember(groupId, actor.userId));
  }

  async function requireGroup(actor: Actor, groupId: number): Promise<void> {
    if (!(await canUseGroup(actor, groupId))) throw notFound('Group');
  }

  async function requireAccessible(actor: Actor, itemId: number): Promise<ItemRow> {
    const row = await repo.find(itemId);
    const visible =
      row !== undefined &&
      (row.groupId === null ? row.ownerId === actor.userId : await canUseGroup(actor, row.groupId));
    if (!visible) throw notFound('Item');
    return row!;
  }

  return {
    /**
     * Your private items and the items of your groups (or one group's with `groupId`),
     * soonest expiry first (undated last), filtered, one page at a time.
     */
    async list(
      actor: Actor,
      query: ListItemsQuery,
    ): Promise<{ items: HouseholdItem[]; nextCursor: string | null }> {
      if (query.groupId !== undefined) await requireGroup(actor, query.groupId);
      const groupIds = groupScope(actor);
      try {
        return await repo.list(
          query.groupId !== undefined
            ? { kind: 'group', groupId: query.groupId }
            : { kind: 'all', userId: actor.userId, groupIds, includeGroups: groupIds?.length !== 0 },
          query,
        );
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    async get(actor: Actor, itemId: number): Promise<HouseholdItem> {
      return toItem(await requireAccessible(actor, itemId));
    },

    /** Creates a private item, or one shared with a group the actor belongs to (404 otherwise). */
    async create(actor: Actor, input: CreateItemInput): Promise<HouseholdItem> {
      const groupId = input.groupId ?? null;
      if (groupId !== null) await requireGroup(actor, groupId);
      const values: ItemValues = {
        name: checkName(input.name),
        quantity: checkQuantity(input.quantity ?? 1),
        unit: optionalText(input.unit),
        location: optionalText(input.location),
        expiresAt: checkInstant(input.expiresAt, 'expiresAt'),
        notes: input.notes ?? null,
        groupId,
      };
      return repo.insert(actor.userId, values, nowIso());
    },

    /**
     * Changes the given fields. Any member may change a shared item; moving it
     * (`groupId`: to another group of theirs, or null for private) is for its creator only (403).
     */
    async update(actor: Actor, itemId: number, input: UpdateItemInput): Promise<HouseholdItem> {
      const row = await requireAccessible(actor, itemId);
      const values: Partial<ItemValues> = {};
      if (input.name !== undefined) values.name = checkName(input.name);
      if (input.quantity !== undefined) values.quantity = checkQuantity(input.quantity);
      if (input.unit !== undefined) values.unit = optionalText(input.unit);
      if (input.location !== undefined) values.location = optionalText(input.location);
      if (input.expiresAt !== undefined) values.expiresAt = checkInstant(input.expiresAt, 'expiresAt');
      if (input.notes !== undefined) values.notes = input.notes;
      if (input.groupId !== undefined && input.groupId !== row.groupId) {
        if (row.ownerId !== actor.userId)
          throw forbidden('Only the member who created the item can share, move or unshare it');
        if (input.groupId !== null) await requireGroup(actor, input.groupId);
        values.groupId = input.groupId;
      }
      return repo.update(itemId, values, nowIso());
    },

    async delete(actor: Actor, itemId: number): Promise<void> {
      await requireAccessible(actor, itemId);
      await repo.delete(itemId);
    },
  };
}
