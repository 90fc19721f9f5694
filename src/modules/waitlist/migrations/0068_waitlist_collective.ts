import type { Kysely, Migration } from 'kysely';

/**
 * A waitlist entry for a collective booking (DECISIONS.md "Teams"): its resources, as JSON in
 * the order asked; null for an entry of one resource or a pool. Its offer holds them all.
 */
export function waitlistCollective(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('waitlist_entries').addColumn('resource_ids', 'text').execute();
    },
  };
}
