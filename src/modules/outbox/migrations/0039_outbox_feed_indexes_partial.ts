import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * The feed indexes (0023) cover only events that have their key: a public booking's event
 * names no user, a person's own event (a calendar's) no organisation, and each was written
 * into an index no feed reads it from (issue 24: the outbox's cost per booking). A feed's
 * `organisation_id = ?` or `user_id = ?` implies the condition, so the feeds still use them.
 */
export function outboxFeedIndexesPartial(dialect: Dialect): Migration {
  const pg = dialect === 'postgres';
  const order = pg ? 'position' : 'id';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const [name, key] of [
        ['outbox_events_organisation_idx', 'organisation_id'],
        ['outbox_events_user_idx', 'user_id'],
      ] as const) {
        await db.schema.dropIndex(name).execute();
        let index = db.schema
          .createIndex(name)
          .on('outbox_events')
          .columns([key, order])
          .where(sql.ref(key), 'is not', null);
        if (pg) index = index.where(sql.ref('position'), 'is not', null);
        await index.execute();
      }
    },
  };
}
