import type { Executor } from '../../db/database.js';
import { TYPE_COLUMNS } from './repo.js';

/**
 * What other modules read of the resource types table, each a query to compose into theirs
 * (as a subquery: `.as(...)`), so their read stays one statement.
 */

/** Every resource type as stored, each column named (read back with `prefixedTypeColumns`, `toResourceType`). */
export const resourceTypeRows = (db: Executor) =>
  db.selectFrom('resourceTypes').select(TYPE_COLUMNS.map((column) => `resourceTypes.${column}` as const));

/** A resource type's name, by its id. */
export function resourceTypeName(db: Executor, resourceTypeId: number) {
  return db
    .selectFrom('resourceTypes')
    .select('resourceTypes.name')
    .where('resourceTypes.id', '=', resourceTypeId);
}
