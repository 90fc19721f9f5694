import type { Kysely, Migration } from 'kysely';

/**
 * What an approval was made from (DECISIONS.md "What the review found, decided"): the
 * organisation the call was asked in, where it runs when approved, and the reservations
 * its summary showed (resources and times, as JSON; the price is in `amount` and
 * `currency`), checked again before it runs. Null in approvals made before: they carry
 * nothing to run on, so approving one finds it stale.
 */
export function approvalFacts(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // One column a statement: SQLite adds one at a time.
      await db.schema.alterTable('agent_approvals').addColumn('organisation_id', 'integer').execute();
      await db.schema.alterTable('agent_approvals').addColumn('facts', 'text').execute();
    },
  };
}
