import type { Expression } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ResourcesTable } from './tables.js';

/**
 * What other modules read of the resources table, each a query to compose into theirs (as a
 * subquery: `.as(...)`, `in`), so their read stays one statement.
 */

/** The type whose answers `resourceId` shares: its parent's for a lane, else its own (`resourceTypeId`). */
export function familyTypeOf(db: Executor, organisationId: number, resourceId: number) {
  return db
    .selectFrom('resources as r')
    .innerJoin('resources as p', (join) =>
      join.on((eb) => eb('p.id', '=', eb.fn.coalesce('r.parentResourceId', 'r.id'))),
    )
    .select('p.resourceTypeId')
    .where('r.organisationId', '=', organisationId)
    .where('r.id', '=', resourceId);
}

/** The ids of `resourceId`'s capacity lanes (none for a resource without lanes). */
export function laneIdsOf(db: Executor, resourceId: number) {
  return db
    .selectFrom('resources')
    .select('resources.id')
    .where('resources.parentResourceId', '=', resourceId);
}

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
  assignmentWeight: true,
  maxBookingsPerDay: true,
  createdAt: true,
  updatedAt: true,
} satisfies Record<keyof ResourcesTable, true>).map(
  (column) => `resources.${column}` as `resources.${keyof ResourcesTable}`,
);

/** Every resource and lane as stored, each column named (a lane's parent is `parentResourceId`). */
export function resourceRows(db: Executor) {
  return db.selectFrom('resources').select(RESOURCE_COLUMNS);
}

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

/** `laneAsRead` for the lane and `updatedAt` a consumer's statement names in its own columns (a pick among lanes). */
export function laneAsReadAt(db: Executor, laneId: Expression<number>, updatedAt: Expression<string>) {
  return db.selectFrom('resources').where('id', '=', laneId).where('updatedAt', '=', updatedAt);
}

/** The ids of the resource and its capacity lanes. */
export function resourceAndLanes(db: Executor, resourceId: number) {
  return db
    .selectFrom('resources')
    .select('id')
    .where((w) => w.or([w('id', '=', resourceId), w('parentResourceId', '=', resourceId)]));
}

/** The organisation's bookable resources (no capacity lanes) among `ids`, with their type: one read for a collective booking. */
export function bookableResourcesAmong(db: Executor, organisationId: number, ids: readonly number[]) {
  return db
    .selectFrom('resources')
    .select(['id', 'resourceTypeId'])
    .where('organisationId', '=', organisationId)
    .where('isCapacityChild', '=', false)
    .where('id', 'in', [...ids]);
}

/** The ids of the organisation's resources (and lanes) of one type. */
export function resourcesOfType(db: Executor, organisationId: number, resourceTypeId: number) {
  return db
    .selectFrom('resources')
    .select('id')
    .where('organisationId', '=', organisationId)
    .where('resourceTypeId', '=', resourceTypeId);
}
