import type { Executor } from '../../db/database.js';
import type { ResourcesTable } from './tables.js';

/**
 * What other modules read of the resources table, each a query to compose into theirs (as a
 * subquery: `.as(...)`, `in`), so their read stays one statement.
 */

/** The type whose answers `resourceId` shares: its parent's for a lane, else its own (`resourceTypeId`). */
export const familyTypeOf = (db: Executor, organisationId: number, resourceId: number) =>
  db
    .selectFrom('resources as r')
    .innerJoin('resources as p', (join) =>
      join.on((eb) => eb('p.id', '=', eb.fn.coalesce('r.parentResourceId', 'r.id'))),
    )
    .select('p.resourceTypeId')
    .where('r.organisationId', '=', organisationId)
    .where('r.id', '=', resourceId);

/** The ids of `resourceId`'s capacity lanes (none for a resource without lanes). */
export const laneIdsOf = (db: Executor, resourceId: number) =>
  db.selectFrom('resources').select('resources.id').where('resources.parentResourceId', '=', resourceId);

/** Every column of the resources table (the `satisfies` fails to compile when one is added and not named here). */
const RESOURCE_COLUMNS = Object.keys({
  id: true,
  organisationId: true,
  resourceTypeId: true,
  name: true,
  description: true,
  capacity: true,
  managedById: true,
  schedulePolicy: true,
  parentResourceId: true,
  isCapacityChild: true,
  capacityLaneIndex: true,
  publicToken: true,
  isActive: true,
  blockOnManagerCalendars: true,
  bookingCalendarId: true,
  createdAt: true,
  updatedAt: true,
} satisfies Record<keyof ResourcesTable, true>).map(
  (column) => `resources.${column}` as `resources.${keyof ResourcesTable}`,
);

/** Every resource and lane as stored, each column named (a lane's parent is `parentResourceId`). */
export const resourceRows = (db: Executor) => db.selectFrom('resources').select(RESOURCE_COLUMNS);
