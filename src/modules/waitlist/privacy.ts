import type { Executor } from '../../db/database.js';
import {
  countOf,
  type DataSubject,
  exportSection,
  json,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const made = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('waitlistEntries').where('waitlistEntries.createdByUserId', '=', userId);

/**
 * Waitlist entries the person made while signed in. A wait is no accounting record: on
 * erasure the entries are deleted (an offer already made is a reservation, erased as
 * reservations are). Public entries are not linked to anyone (as public bookings).
 */
export const waitlistPrivacy: PrivacyDeclaration = {
  module: 'waitlist',
  tables: {
    waitlist_entries: personal('waitlist', 'deleted'),
    waitlist_consumer: noPersonalData(
      'The outbox event id the waitlist offer consumer has reached, and its lease',
    ),
  },
  categories: [
    {
      id: 'waitlist',
      label: 'Waitlist entries you made',
      purpose: 'Offering you freed time you waited for',
      retention: 'Until you leave the list or ask for erasure',
    },
  ],
  async holdings(db, subject) {
    return { waitlist_entries: await countOf(made(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'waitlist_entries',
      table: 'waitlist_entries',
      key: ['waitlistEntries.id'],
      rows: (db, s) =>
        made(db, s).select([
          'waitlistEntries.id',
          'organisationId',
          'resourceTypeId',
          'resourceId',
          'resourceIds',
          'startTime',
          'endTime',
          'customerName',
          'customerEmail',
          'customerPhone',
          'customerInfo',
          'notes',
          'status',
          'offerReservationId',
          'createdAt',
        ]),
      record: (row) => ({ ...row, customerInfo: json(row.customerInfo), resourceIds: json(row.resourceIds) }),
    }),
  ],
  async erase(trx, { userId }) {
    const deleted = await trx
      .deleteFrom('waitlistEntries')
      .where('createdByUserId', '=', userId)
      .executeTakeFirst();
    return { waitlist_entries: Number(deleted.numDeletedRows) };
  },
};
