import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/**
 * External calendar sync: provider connections (tokens sealed), calendar mappings with their
 * sync cursor, push channel and lease, connect states, recurring-series exceptions and the
 * record of push-back conflicts.
 */
export function calendarSync(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('calendar_sync_connections'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'text', (col) => col.notNull())
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('access_token_enc', 'text', (col) => col.notNull())
        .addColumn('refresh_token_enc', 'text')
        .addColumn('access_token_expires_at', c.timestamp)
        .addColumn('scope', 'text')
        .addColumn('external_calendars', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('last_error_code', 'text')
        .addColumn('last_error_message', 'text')
        .addColumn('last_error_at', c.timestamp)
        .addColumn('connected_at', c.timestamp, (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('calendar_sync_connections_user_provider_key', ['user_id', 'provider'])
        .execute();

      await c
        .withId(db.schema.createTable('calendar_sync_mappings'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'text', (col) => col.notNull())
        .addColumn('external_calendar_id', 'text', (col) => col.notNull())
        // Deleting the local calendar ends its mapping.
        .addColumn('local_calendar_id', 'integer', (col) =>
          col.notNull().references('calendars.id').onDelete('cascade'),
        )
        .addColumn('local_name', 'text', (col) => col.notNull())
        .addColumn('bidirectional_sync', c.bool, (col) => col.notNull())
        .addColumn('import_reminders', c.bool, (col) => col.notNull())
        .addColumn('trigger_automation_rules', c.bool, (col) => col.notNull())
        .addColumn('selected_rule_ids', 'text')
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('sync_token', 'text')
        .addColumn('sync_window_end', c.timestamp)
        .addColumn('last_synced_at', c.timestamp)
        .addColumn('last_polled_at', c.timestamp)
        .addColumn('channel_id', 'text')
        .addColumn('channel_resource_id', 'text')
        .addColumn('channel_token_hash', 'text')
        .addColumn('channel_expires_at', c.timestamp)
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('calendar_sync_mappings_external_key', [
          'user_id',
          'provider',
          'external_calendar_id',
        ])
        .execute();
      // One external calendar per local calendar: push-back must know where an edit goes.
      await db.schema
        .createIndex('calendar_sync_mappings_local_idx')
        .on('calendar_sync_mappings')
        .column('local_calendar_id')
        .unique()
        .execute();
      // Webhooks find their calendar by channel (A) or subscription (B) id.
      await db.schema
        .createIndex('calendar_sync_mappings_channel_idx')
        .on('calendar_sync_mappings')
        .columns(['provider', 'channel_id'])
        .unique()
        .execute();
      // The poller and the channel renewal scan active mappings.
      await db.schema
        .createIndex('calendar_sync_mappings_state_idx')
        .on('calendar_sync_mappings')
        .columns(['state', 'last_polled_at'])
        .execute();

      await c
        .withId(db.schema.createTable('calendar_sync_states'))
        .addColumn('state_hash', 'text', (col) => col.notNull().unique())
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'text', (col) => col.notNull())
        .addColumn('code_verifier_enc', 'text', (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('used_at', c.timestamp)
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('calendar_sync_states_expires_idx')
        .on('calendar_sync_states')
        .column('expires_at')
        .execute();

      await c
        .withId(db.schema.createTable('calendar_sync_exceptions'))
        .addColumn('mapping_id', 'integer', (col) =>
          col.notNull().references('calendar_sync_mappings.id').onDelete('cascade'),
        )
        .addColumn('series_external_id', 'text', (col) => col.notNull())
        .addColumn('instance_external_id', 'text', (col) => col.notNull())
        .addColumn('exdate', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('calendar_sync_exceptions_instance_key', ['mapping_id', 'instance_external_id'])
        .execute();
      await db.schema
        .createIndex('calendar_sync_exceptions_series_idx')
        .on('calendar_sync_exceptions')
        .columns(['mapping_id', 'series_external_id'])
        .execute();

      await c
        .withId(db.schema.createTable('calendar_sync_conflicts'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('mapping_id', 'integer', (col) =>
          col.references('calendar_sync_mappings.id').onDelete('set null'),
        )
        .addColumn('event_id', 'integer', (col) => col.references('events.id').onDelete('set null'))
        .addColumn('external_id', 'text', (col) => col.notNull())
        .addColumn('local_change', 'text', (col) => col.notNull())
        .addColumn('resolution', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('calendar_sync_conflicts_user_idx')
        .on('calendar_sync_conflicts')
        .columns(['user_id', 'id'])
        .execute();
    },
  };
}
