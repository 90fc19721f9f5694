import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const concerning = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('webhookDeliveries').where('webhookDeliveries.userId', '=', userId);

/**
 * The delivery log: each delivery keeps the event it sends (a booking with its customer,
 * an invitation with its email), linked to the person the event concerns as the outbox
 * links it (its userId). Exported with what was sent and deleted on erasure, as the
 * events themselves are; kept 30 days anyway. Endpoints are the organisation's settings
 * (a URL, a sealed secret), the dispatcher's position an event id.
 */
export const webhooksPrivacy: PrivacyDeclaration = {
  module: 'webhooks',
  tables: {
    webhook_deliveries: personal('webhook_deliveries', 'deleted'),
    webhook_endpoints: noPersonalData(
      "An organisation's endpoint URLs, event types and sealed signing secrets",
    ),
    webhook_dispatch_positions: noPersonalData('The outbox event id the webhook dispatcher has reached'),
  },
  categories: [
    {
      id: 'webhook_deliveries',
      label: 'Events about you sent to an organisation’s own systems (webhooks)',
      purpose: "Telling the organisation's systems what happened, and retrying until they received it",
      retention: '30 days',
    },
  ],
  async holdings(db, subject) {
    return { webhook_deliveries: await countOf(concerning(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'webhookDeliveries',
      table: 'webhook_deliveries',
      key: ['webhookDeliveries.id'],
      rows: (db, s) =>
        concerning(db, s).select([
          'webhookDeliveries.id',
          'organisationId',
          'eventId',
          'eventType',
          'payload',
          'status',
          'createdAt',
        ]),
      record: (row) => ({ ...row, payload: json(row.payload) }),
    }),
  ],
  async erase(trx, { userId }) {
    const deleted = await trx.deleteFrom('webhookDeliveries').where('userId', '=', userId).executeTakeFirst();
    return { webhook_deliveries: changed(deleted) };
  },
};
