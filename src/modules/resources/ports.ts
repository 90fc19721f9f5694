import type { Executor } from '../../db/database.js';

// What other modules may read of resources, as query fragments they compose into their own
// statements (the table's name stays in this folder).

/** Bookable resources of the organisation: capacity lanes are part of their parent, not counted apart. */
export async function countResources(db: Executor, organisationId: number): Promise<number> {
  const row = await db
    .selectFrom('resources')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('organisationId', '=', organisationId)
    .where('isCapacityChild', '=', false)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
