import { type Selectable, type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { pageByNullableKey } from '../../db/keyset.js';
import { memberGroupIds } from '../user-groups/ports.js';
import type { HouseholdItem, ListItemsQuery } from './schemas.js';
import type { HouseholdItemsTable } from './tables.js';

export type ItemRow = Selectable<HouseholdItemsTable>;

export interface ItemValues {
  name: string;
  quantity: number;
  unit: string | null;
  location: string | null;
  expiresAt: string | null;
  notes: string | null;
  groupId: number | null;
}

export function toItem(row: ItemRow): HouseholdItem {
  return {
    id: row.id,
    name: row.name,
    quantity: Number(row.quantity),
    unit: row.unit,
    location: row.location,
    expiresAt: row.expiresAt,
    notes: row.notes,
    groupId: row.groupId,
    ownerId: row.ownerId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Which items a list may see: one group's items, or the user's private items plus
 * the items of the groups they belong to (within `groupIds` when given; the service
 * never passes an empty array, it leaves the groups out instead).
 */
export type Visibility =
  | { kind: 'group'; groupId: number }
  | { kind: 'all'; userId: number; groupIds: readonly number[] | undefined; includeGroups: boolean };

export function createHouseholdRepo(db: Executor) {
  return {
    async insert(ownerId: number, values: ItemValues, now: string): Promise<HouseholdItem> {
      const row = await db
        .insertInto('householdItems')
        .values({ ownerId, ...values, createdAt: now, updatedAt: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toItem(row);
    },

    find(id: number): Promise<ItemRow | undefined> {
      return db.selectFrom('householdItems').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** One page in (expiresAt nulls last, id) order. Throws InvalidCursorError for a foreign cursor. */
    async list(visibility: Visibility, query: ListItemsQuery) {
      let q = db.selectFrom('householdItems').selectAll();
      if (visibility.kind === 'group') q = q.where('groupId', '=', visibility.groupId);
      else {
        const { userId, groupIds, includeGroups } = visibility;
        q = q.where((eb) =>
          eb.or([
            eb.and([eb('groupId', 'is', null), eb('ownerId', '=', userId)]),
            ...(includeGroups ? [eb('groupId', 'in', memberGroupIds(db, userId, groupIds))] : []),
          ]),
        );
      }
      if (query.location !== undefined)
        q = q.where(sql<SqlBool>`lower(${sql.ref('location')}) = lower(${query.location})`);
      if (query.expiringBefore !== undefined)
        q = q.where('expiresAt', '<', new Date(query.expiringBefore).toISOString());
      const { rows, nextCursor } = await pageByNullableKey(q, 'expiresAt', query.cursor, query.limit);
      return { items: rows.map(toItem), nextCursor };
    },

    async update(id: number, values: Partial<ItemValues>, now: string): Promise<HouseholdItem> {
      const row = await db
        .updateTable('householdItems')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toItem(row);
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('householdItems').where('id', '=', id).execute();
    },
  };
}
