import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Privacy: data-subject requests, consent and policy-acceptance histories, the operator's
 * audit trail; and the indexes that find one person's bookings and tasks.
 */
export function privacy(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('data_subject_requests'))
        // Set null, never cascade: the request outlives the person it erased (the operator's proof).
        .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('request_type', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('reason', 'text')
        .addColumn('confirm_email', 'text')
        .addColumn('resolution', 'text')
        .addColumn('started_at', c.timestamp)
        .addColumn('completed_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The person's list, newest first.
      await db.schema
        .createIndex('data_subject_requests_user_idx')
        .on('data_subject_requests')
        .columns(['user_id', 'id'])
        .execute();
      // The operator's queue by status.
      await db.schema
        .createIndex('data_subject_requests_status_idx')
        .on('data_subject_requests')
        .columns(['status', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('consent_decisions'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('consent_type', 'text', (col) => col.notNull())
        .addColumn('decision', 'text', (col) => col.notNull())
        .addColumn('policy_version', 'text', (col) => col.notNull())
        .addColumn('source', 'text')
        .addColumn('ip_address', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('metadata', 'text')
        .addColumn('decided_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The newest decision per type, and the history page.
      await db.schema
        .createIndex('consent_decisions_user_type_idx')
        .on('consent_decisions')
        .columns(['user_id', 'consent_type', 'id'])
        .execute();
      await db.schema
        .createIndex('consent_decisions_user_idx')
        .on('consent_decisions')
        .columns(['user_id', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('policy_acceptances'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('version', 'text', (col) => col.notNull())
        .addColumn('ip_address', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('accepted_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('policy_acceptances_user_idx')
        .on('policy_acceptances')
        .columns(['user_id', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('privacy_audit'))
        .addColumn('request_id', 'integer', (col) =>
          col.references('data_subject_requests.id').onDelete('set null'),
        )
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('actor', 'text', (col) => col.notNull())
        .addColumn('details', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('privacy_audit_request_idx')
        .on('privacy_audit')
        .columns(['request_id', 'id'])
        .execute();

      // Two indexes on other modules' tables, for reading one person's rows in key order
      // (export batches, access-report counts, erasure). Bookings: otherwise every
      // organisation's reservations are scanned to find the ones a person made.
      await db.schema
        .createIndex('reservations_created_by_idx')
        .on('reservations')
        .columns(['created_by_user_id', 'id'])
        .execute();
      // Tasks: their indexes order by due date, so each export batch would sort the whole list.
      await db.schema.createIndex('tasks_owner_id_idx').on('tasks').columns(['owner_id', 'id']).execute();
    },
  };
}
