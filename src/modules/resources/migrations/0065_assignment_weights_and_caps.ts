import type { Kysely, Migration } from 'kysely';

/**
 * A resource's share of its pool's round robin (1..100) and the most bookings it takes in
 * one (organisation-local) day, null for no cap. Lanes carry their parent's.
 */
export function assignmentWeightsAndCaps(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('resources')
        .addColumn('assignment_weight', 'integer', (col) => col.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('resources').addColumn('max_bookings_per_day', 'integer').execute();
    },
  };
}
