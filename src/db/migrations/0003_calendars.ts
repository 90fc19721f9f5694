import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

export function calendars(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('calendars'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('color', 'text', (col) => col.notNull())
        .addColumn('timezone', 'text', (col) => col.notNull().defaultTo('UTC'))
        .addColumn('description', 'text')
        .addColumn('is_default', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('calendars_owner_idx').on('calendars').column('owner_id').execute();
      // One default calendar per user, enforced by the database.
      await db.schema
        .createIndex('calendars_one_default_idx')
        .on('calendars')
        .column('owner_id')
        .unique()
        .where(sql.ref('is_default'), '=', sql`true`)
        .execute();
      // Users who existed before calendars get their default calendar now.
      await sql`
        insert into calendars (owner_id, name, color, timezone, is_default, created_at, updated_at)
        select id, 'Personal', '#3b82f6', 'UTC', true, created_at, created_at from users
      `.execute(db);

      await c
        .withId(db.schema.createTable('events'))
        .addColumn('calendar_id', 'integer', (col) =>
          col.notNull().references('calendars.id').onDelete('cascade'),
        )
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('location', 'text')
        .addColumn('start_time', c.timestamp, (col) => col.notNull())
        .addColumn('end_time', c.timestamp, (col) => col.notNull())
        .addColumn('all_day', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('timezone', 'text', (col) => col.notNull())
        .addColumn('recurrence', 'text')
        .addColumn('reminders', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('occurs_until', c.timestamp)
        .addColumn('external_provider', 'text')
        .addColumn('external_id', 'text')
        .addColumn('external_etag', 'text')
        .addColumn('external_last_synced_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The range query: calendar_id = ? and start_time < :to and (occurs_until is null or occurs_until > :from).
      await db.schema
        .createIndex('events_calendar_start_idx')
        .on('events')
        .columns(['calendar_id', 'start_time'])
        .execute();
      // Sync looks events up by their provider id; local events (nulls) never clash.
      await db.schema
        .createIndex('events_external_idx')
        .on('events')
        .columns(['calendar_id', 'external_provider', 'external_id'])
        .unique()
        .execute();

      await c
        .withId(db.schema.createTable('user_groups'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();

      await c
        .withId(db.schema.createTable('user_group_members'))
        .addColumn('group_id', 'integer', (col) =>
          col.notNull().references('user_groups.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('user_group_members_group_user_key', ['group_id', 'user_id'])
        .execute();
      // (group_id, user_id) is served by the unique constraint's index; "my groups" needs its own.
      await db.schema
        .createIndex('user_group_members_user_idx')
        .on('user_group_members')
        .columns(['user_id', 'group_id'])
        .execute();

      await c
        .withId(db.schema.createTable('user_group_calendars'))
        .addColumn('group_id', 'integer', (col) =>
          col.notNull().references('user_groups.id').onDelete('cascade'),
        )
        .addColumn('calendar_id', 'integer', (col) =>
          col.notNull().references('calendars.id').onDelete('cascade'),
        )
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('user_group_calendars_group_calendar_key', ['group_id', 'calendar_id'])
        .execute();
      // "Is this calendar shared with me": from the calendar to its groups.
      await db.schema
        .createIndex('user_group_calendars_calendar_idx')
        .on('user_group_calendars')
        .columns(['calendar_id', 'group_id'])
        .execute();

      await c
        .withId(db.schema.createTable('user_group_invites'))
        .addColumn('group_id', 'integer', (col) =>
          col.notNull().references('user_groups.id').onDelete('cascade'),
        )
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_by', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('used_at', c.timestamp)
        .addColumn('used_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('user_group_invites_group_idx')
        .on('user_group_invites')
        .column('group_id')
        .execute();
    },
  };
}
