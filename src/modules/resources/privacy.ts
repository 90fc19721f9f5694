import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const managed = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('resources').where('resources.managedById', '=', userId);

/** Resources belong to organisations; the only personal link is who manages one. */
export const resourcesPrivacy: PrivacyDeclaration = {
  module: 'resources',
  tables: {
    resources: personal(
      'work',
      '"managed by" is cleared, with blocking on and mirroring into their calendars; the resource stays with its organisation',
    ),
    resource_list_versions: noPersonalData('A counter per organisation, raised when its resources change'),
  },
  categories: [
    {
      id: 'work',
      label: 'Resources you manage for an organisation',
      purpose: 'Showing the organisation who looks after a resource',
      retention: 'While you manage the resource; until your account is erased',
    },
  ],
  async holdings(db, subject) {
    return { resources: await countOf(managed(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'managedResources',
      table: 'resources',
      key: ['resources.id'],
      rows: (db, s) => managed(db, s).select(['resources.id', 'organisationId', 'name', 'createdAt']),
    }),
  ],
  async erase(trx, { userId }) {
    const result = await trx
      .updateTable('resources')
      .set({ managedById: null, blockOnManagerCalendars: false, bookingCalendarId: null })
      .where('managedById', '=', userId)
      .executeTakeFirst();
    return { resources: changed(result) };
  },
};
