import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read of the resource types table, as query fragments they
 * compose into their own statements (so a read stays one statement and the table stays here).
 */

/** A resource type's name, by its id. */
export function resourceTypeName(db: Executor, resourceTypeId: number) {
  return db
    .selectFrom('resourceTypes')
    .select('resourceTypes.name')
    .where('resourceTypes.id', '=', resourceTypeId);
}
