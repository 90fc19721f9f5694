import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const held = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('idempotencyKeys').where('idempotencyKeys.userId', '=', userId);

/**
 * Idempotency keys of booking requests. A row holds the answer to the booking (which
 * names the customer) for 24 hours, then is purged. Signed-in callers' rows are linked
 * to them: exported (key, route fingerprint, status and time, not the stored answer,
 * which is the reservation already exported) and deleted on erasure. Public routes'
 * rows are linked to no account and disappear with the 24-hour purge.
 */
export const idempotencyPrivacy: PrivacyDeclaration = {
  module: 'idempotency',
  tables: {
    idempotency_keys: personal('idempotency_keys', 'deleted'),
  },
  categories: [
    {
      id: 'idempotency_keys',
      label: 'Idempotency keys of your booking requests, with the answer each got',
      purpose: 'Answering a retried booking request with its first result instead of booking twice',
      retention: '24 hours',
    },
  ],
  async holdings(db, subject) {
    return { idempotency_keys: await countOf(held(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'idempotencyKeys',
      table: 'idempotency_keys',
      key: ['idempotencyKeys.id'],
      rows: (db, s) =>
        held(db, s).select(['idempotencyKeys.id', 'key', 'statusCode', 'createdAt', 'completedAt']),
    }),
  ],
  async erase(trx, { userId }) {
    const deleted = await trx.deleteFrom('idempotencyKeys').where('userId', '=', userId).executeTakeFirst();
    return { idempotency_keys: changed(deleted) };
  },
};
