import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const concerning = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('outboxEvents').where('outboxEvents.userId', '=', userId);

/**
 * Events concerning the person (their userId): the records they carry (a reservation with
 * its customer, an invitation with its email) as they were. Erasure deletes them: they are
 * notifications, kept 30 days anyway, and the records themselves are erased or kept by
 * their own modules. An event of someone else's change (a booking staff made for the
 * person) is the organisation's, as that booking is (reservations/privacy.ts).
 */
export const outboxPrivacy: PrivacyDeclaration = {
  module: 'outbox',
  tables: { outbox_events: personal('event_notifications', 'deleted') },
  categories: [
    {
      id: 'event_notifications',
      label: 'Events about changes that concern you (bookings you made, invitations, requests)',
      purpose: 'Telling you and the organisation what happened (feeds, webhooks, email)',
      retention: '30 days',
    },
  ],
  async holdings(db, subject) {
    return { outbox_events: await countOf(concerning(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'eventNotifications',
      table: 'outbox_events',
      key: ['outboxEvents.id'],
      rows: (db, s) =>
        concerning(db, s).select(['outboxEvents.id', 'type', 'occurredAt', 'organisationId', 'data']),
      record: (row) => ({ ...row, data: json(row.data) }),
    }),
  ],
  async erase(trx, { userId }) {
    const deleted = await trx.deleteFrom('outboxEvents').where('userId', '=', userId).executeTakeFirst();
    return { outbox_events: changed(deleted) };
  },
};
