import type { Executor } from '../../db/database.js';
import {
  bool,
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const owned = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('calendars').where('calendars.ownerId', '=', userId);

/** The person's calendars (their events are the events module's). */
export const calendarsPrivacy: PrivacyDeclaration = {
  module: 'calendars',
  tables: {
    calendars: personal('calendars', 'deleted'),
  },
  categories: [
    {
      id: 'calendars',
      label: 'Your calendars: names, colours, time zones, descriptions',
      purpose: 'Organising your events and sharing calendars with your groups',
      retention: 'Until you delete them or your account is erased',
    },
  ],
  async holdings(db, subject) {
    return { calendars: await countOf(owned(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'calendars',
      table: 'calendars',
      key: ['calendars.id'],
      rows: (db, s) =>
        owned(db, s).select([
          'calendars.id',
          'name',
          'color',
          'timezone',
          'description',
          'isDefault',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, isDefault: bool(row.isDefault) }),
    }),
  ],
  async erase(trx, { userId }) {
    const result = await trx.deleteFrom('calendars').where('ownerId', '=', userId).executeTakeFirst();
    return { calendars: changed(result) };
  },
};
