import type { Kysely, Migration } from 'kysely';

/**
 * How a POOL type picks the resource of a booking (DECISIONS.md "Teams: round robin,
 * collective bookings, explanations"): `first_free` (what every type did before),
 * `round_robin` or `least_busy_day`.
 */
export function poolAssignment(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('resource_types')
        .addColumn('assignment', 'text', (col) => col.notNull().defaultTo('first_free'))
        .execute();
    },
  };
}
