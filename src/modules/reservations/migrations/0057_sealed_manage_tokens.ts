import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { reservationEventsFunction } from '../../outbox/migrations/0023_outbox.js';

/**
 * The customer's manage token sealed beside its hash (DECISIONS.md "Pages people live in":
 * every customer mail carries the manage link), on reservations and on waitlist entries,
 * whose offer's hold carries the entry's link. Rows stored before keep a null: their mails
 * carry no link, as no token can be made again from its hash. A reservation event's stored
 * row never carries it: PostgreSQL's trigger, which stores the whole row, leaves it out as it
 * leaves out the hash; SQLite's name their columns, and it is not among them.
 */
export function sealedManageTokens(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ['reservations', 'waitlist_entries'])
        await db.schema.alterTable(table).addColumn('manage_token_sealed', 'text').execute();
      if (dialect === 'postgres')
        await reservationEventsFunction(
          db,
          'create or replace',
          `jsonb_strip_nulls(to_jsonb(new) - 'manage_token_hash' - 'manage_token_sealed')::text`,
        );
    },
  };
}
