import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

export function resources(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('resource_types'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('min_booking_duration', 'integer', (col) => col.notNull())
        .addColumn('buffer_time', 'integer', (col) => col.notNull())
        .addColumn('customer_info_fields', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('waitlist_enabled', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('recurring_enabled', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('booking_mode', 'text', (col) => col.notNull())
        .addColumn('color', 'text')
        .addColumn('icon', 'text')
        .addColumn('schedule_policy', 'text')
        .addColumn('pricing_enabled', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('payment_required', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('price_amount', 'integer')
        .addColumn('price_currency', 'text')
        .addColumn('is_active', c.bool, (col) => col.notNull().defaultTo(sql`true`))
        .addColumn('longest_reservation_minutes', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('resource_types_org_idx')
        .on('resource_types')
        .column('organisation_id')
        .execute();

      await c
        .withId(db.schema.createTable('resources'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('resource_type_id', 'integer', (col) => col.notNull().references('resource_types.id'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('capacity', 'integer', (col) => col.notNull().defaultTo(1))
        .addColumn('managed_by_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('schedule_policy', 'text')
        .addColumn('parent_resource_id', 'integer', (col) =>
          col.references('resources.id').onDelete('cascade'),
        )
        .addColumn('is_capacity_child', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('capacity_lane_index', 'integer')
        .addColumn('public_token', 'text', (col) => col.notNull().unique())
        .addColumn('is_active', c.bool, (col) => col.notNull().defaultTo(sql`true`))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('resources_parent_lane_key', ['parent_resource_id', 'capacity_lane_index'])
        .execute();
      await db.schema
        .createIndex('resources_org_type_idx')
        .on('resources')
        .columns(['organisation_id', 'resource_type_id'])
        .execute();

      await c
        .withId(db.schema.createTable('reservations'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        // History outlives the catalogue: deleting a resource or type keeps its past reservations.
        .addColumn('resource_type_id', 'integer', (col) =>
          col.references('resource_types.id').onDelete('set null'),
        )
        .addColumn('resource_id', 'integer', (col) => col.references('resources.id').onDelete('set null'))
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('start_time', c.timestamp, (col) => col.notNull())
        .addColumn('end_time', c.timestamp, (col) => col.notNull())
        .addColumn('customer_name', 'text', (col) => col.notNull())
        .addColumn('customer_email', 'text', (col) => col.notNull())
        .addColumn('customer_phone', 'text')
        .addColumn('customer_info', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('notes', 'text')
        .addColumn('price_amount', 'integer')
        .addColumn('price_currency', 'text')
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('created_by_user_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('cancelled_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Availability and conflict checks: a lane's reservations by start time. It covers
      // every column those reads need, so they never touch the table rows.
      await db.schema
        .createIndex('reservations_resource_start_idx')
        .on('reservations')
        .columns(['resource_id', 'start_time', 'end_time', 'status'])
        .execute();
      // The reservation list: an organisation's reservations in id (cursor) order.
      await db.schema
        .createIndex('reservations_org_id_idx')
        .on('reservations')
        .columns(['organisation_id', 'id'])
        .execute();
    },
  };
}
