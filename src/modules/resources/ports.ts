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

/**
 * The lane's row while it is as a writer read it (same `updatedAt`), selecting no column of
 * its own: the consumer selects its values from it (a booking's insert, a move's guard) and
 * may lock it, all in its one statement.
 */
export function laneAsRead(db: Executor, laneId: number, updatedAt: string) {
  return db.selectFrom('resources').where('id', '=', laneId).where('updatedAt', '=', updatedAt);
}

/** The ids of the resource and its capacity lanes. */
export function resourceAndLanes(db: Executor, resourceId: number) {
  return db
    .selectFrom('resources')
    .select('id')
    .where((w) => w.or([w('id', '=', resourceId), w('parentResourceId', '=', resourceId)]));
}

/** The ids of the organisation's resources (and lanes) of one type. */
export function resourcesOfType(db: Executor, organisationId: number, resourceTypeId: number) {
  return db
    .selectFrom('resources')
    .select('id')
    .where('organisationId', '=', organisationId)
    .where('resourceTypeId', '=', resourceTypeId);
}
