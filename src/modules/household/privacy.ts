import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const created = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('householdItems').where('householdItems.ownerId', '=', userId);

/**
 * Household items the person created, private or shared with a group (items other
 * members created in a shared group are theirs, not the person's).
 */
export const householdPrivacy: PrivacyDeclaration = {
  module: 'household',
  tables: {
    household_items: personal('household', 'items you created are deleted, shared ones too'),
  },
  categories: [
    {
      id: 'household',
      label: 'Household items you added: names, quantities, places, expiry dates, notes',
      purpose: 'Keeping your household inventory, alone or with your groups',
      retention: 'Until you delete them or your account is erased',
    },
  ],
  async holdings(db, subject) {
    return { household_items: await countOf(created(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'householdItems',
      table: 'household_items',
      key: ['householdItems.id'],
      rows: (db, s) =>
        created(db, s).select([
          'householdItems.id',
          'groupId',
          'name',
          'quantity',
          'unit',
          'location',
          'expiresAt',
          'notes',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, quantity: Number(row.quantity) }),
    }),
  ],
  async erase(trx, { userId }) {
    const result = await trx.deleteFrom('householdItems').where('ownerId', '=', userId).executeTakeFirst();
    return { household_items: changed(result) };
  },
};
