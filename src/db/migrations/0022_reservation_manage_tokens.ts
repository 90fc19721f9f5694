import { type Kysely, sql } from 'kysely';

/**
 * A customer's manage link (issue 22): a public booking or hold stores the SHA-256 of the
 * token its answer showed once, never the token. Member bookings have none (null). The
 * unique index is the lookup by hash, and no two reservations can answer one link; both
 * dialects let any number of rows be null under a unique index.
 */
export function reservationManageTokens() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('manage_token_hash', 'text').execute();
      await db.schema
        .createIndex('reservations_manage_token_hash_idx')
        .on('reservations')
        .column('manage_token_hash')
        .unique()
        // Only rows that have one: most have none, and a booking then writes one index less.
        .where(sql.ref('manage_token_hash'), 'is not', null)
        .execute();
    },
  };
}
