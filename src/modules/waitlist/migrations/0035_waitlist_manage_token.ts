import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A public waitlist entry is found by its manage link (the SHA-256 of the token) before it
 * has an offer: a unique partial index, so the lookup is one probe and no two entries share
 * a link.
 */
export function waitlistManageToken(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('waitlist_entries_manage_token_idx')
        .on('waitlist_entries')
        .column('manage_token_hash')
        .unique()
        .where(sql.ref('manage_token_hash'), 'is not', null)
        .execute();
    },
  };
}
