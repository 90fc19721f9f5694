import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * Subscription feeds (issue 26): one secret `.ics` URL per calendar (its owner's) and per
 * resource (its organisation's staff). Only the SHA-256 of the token is kept: the URL is
 * shown once, a new one replaces the old, and a lost one is made again. A calendar's or
 * resource's feed goes with it (foreign keys cascade).
 */
export function feeds(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('feed_tokens'))
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('calendar_id', 'integer', (col) => col.references('calendars.id').onDelete('cascade'))
        .addColumn('resource_id', 'integer', (col) => col.references('resources.id').onDelete('cascade'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.references('organisations.id').onDelete('cascade'),
        )
        // Who made it (null once that person is erased: a resource's feed is the organisation's).
        .addColumn('created_by_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // One feed per calendar and per resource: a new one replaces it.
      for (const column of ['calendar_id', 'resource_id'])
        await db.schema
          .createIndex(`feed_tokens_${column}_idx`)
          .on('feed_tokens')
          .column(column)
          .unique()
          .where(sql.ref(column), 'is not', null)
          .execute();
      await db.schema
        .createIndex('feed_tokens_created_by_idx')
        .on('feed_tokens')
        .column('created_by_id')
        .execute();
    },
  };
}
