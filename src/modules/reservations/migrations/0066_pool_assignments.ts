import type { Kysely, Migration } from 'kysely';

/**
 * How a pool booking's resource was picked: the type's strategy then and the reason, in a
 * sentence; both null on reservations of one named resource and on rows stored before.
 */
export function poolAssignments(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('assignment_strategy', 'text').execute();
      await db.schema.alterTable('reservations').addColumn('assignment_reason', 'text').execute();
    },
  };
}
