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

const mailTo = (db: Executor, { email }: DataSubject) =>
  db.selectFrom('mailMessages').where('mailMessages.recipient', '=', email);

/**
 * The mail the service sent: one row per message, naming its recipient's address and
 * its subject (which names the organisation and the day of a booking), kept 30 days to
 * send each mail once. Linked to a person by their address: exported (what was sent
 * when, not the body, which restates the reservation already exported) and deleted on
 * erasure. The consumer's position and the invitation counters hold ids only.
 */
export const mailPrivacy: PrivacyDeclaration = {
  module: 'mail',
  tables: {
    mail_messages: personal('mail_messages', 'deleted'),
    mail_consumer_positions: noPersonalData('The outbox event id the mail sender has reached'),
    mail_calendar_invitations: noPersonalData('Reservation ids and their calendar SEQUENCE numbers'),
  },
  categories: [
    {
      id: 'mail_messages',
      label:
        'Email sent to you: booking confirmations, payment requests, changes, waitlist offers and invitations',
      purpose: 'Telling you about your bookings and invitations, and sending each message once',
      retention: '30 days',
    },
  ],
  async holdings(db, subject) {
    return { mail_messages: await countOf(mailTo(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'mailMessages',
      table: 'mail_messages',
      key: ['mailMessages.id'],
      rows: (db, s) =>
        mailTo(db, s).select([
          'mailMessages.id',
          'kind',
          'subject',
          'recipient',
          'status',
          'sentAt',
          'createdAt',
        ]),
    }),
  ],
  async erase(trx, { email }) {
    const deleted = await trx.deleteFrom('mailMessages').where('recipient', '=', email).executeTakeFirst();
    return { mail_messages: changed(deleted) };
  },
};
