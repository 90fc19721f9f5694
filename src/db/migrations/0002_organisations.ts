import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

export function organisations(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('organisations'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('address', 'text')
        .addColumn('phone', 'text')
        .addColumn('email', 'text')
        .addColumn('slug', 'text', (col) => col.unique())
        .addColumn('logo_url', 'text')
        .addColumn('public_booking_headline', 'text')
        .addColumn('public_booking_description', 'text')
        .addColumn('schedule_policy', 'text')
        .addColumn('timezone', 'text', (col) => col.notNull().defaultTo('UTC'))
        .addColumn('default_currency', 'text', (col) => col.notNull().defaultTo('usd'))
        .addColumn('color', 'text')
        .addColumn('is_active', c.bool, (col) => col.notNull().defaultTo(sql`true`))
        .addColumn('archived_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();

      await c
        .withId(db.schema.createTable('organisation_memberships'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('assigned_by_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('organisation_memberships_org_user_key', ['organisation_id', 'user_id'])
        .execute();
      // (organisation_id, user_id) is served by the unique constraint's index; the list by user needs its own.
      await db.schema
        .createIndex('organisation_memberships_user_idx')
        .on('organisation_memberships')
        .columns(['user_id', 'role'])
        .execute();

      await c
        .withId(db.schema.createTable('organisation_payment_accounts'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().unique().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('provider_account_id', 'text')
        .addColumn('connect_status', 'text', (col) => col.notNull().defaultTo('not_connected'))
        .addColumn('charges_enabled', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('payouts_enabled', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('details_submitted', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('currently_due', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('pending_verification', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('disabled_reason', 'text')
        .addColumn('connection_key', 'text', (col) => col.notNull())
        .addColumn('synced_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Provider notifications (webhooks) arrive by account id.
      await db.schema
        .createIndex('organisation_payment_accounts_provider_account_idx')
        .on('organisation_payment_accounts')
        .column('provider_account_id')
        .execute();

      // Archiving an organisation clears it as anyone's active organisation.
      await db.schema
        .createIndex('users_active_organisation_idx')
        .on('users')
        .column('active_organisation_id')
        .execute();
    },
  };
}
