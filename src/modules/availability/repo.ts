import type { Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import type { ResourcesTable } from '../../db/tables/resources.js';
import type { Interval } from './engine.js';

/** Longest reservation the service accepts; bounds how far back an overlap search must look. */
export const MAX_RESERVATION_MS = 31 * 86_400_000;

export type CatalogueRow = Selectable<ResourcesTable>;

export function createAvailabilityRepo(db: Executor, dialect: Dialect) {
  return {
    /** A resource with its lanes, or a lane with its parent and siblings: parent first, lanes in order. */
    async family(organisationId: number, resourceId: number): Promise<CatalogueRow[]> {
      const row = await db
        .selectFrom('resources')
        .select(['id', 'parentResourceId'])
        .where('organisationId', '=', organisationId)
        .where('id', '=', resourceId)
        .executeTakeFirst();
      if (!row) return [];
      const parentId = row.parentResourceId ?? row.id;
      const rows = await db
        .selectFrom('resources')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where((eb) => eb.or([eb('id', '=', parentId), eb('parentResourceId', '=', parentId)]))
        .execute();
      return rows.sort((a, b) => (a.capacityLaneIndex ?? 0) - (b.capacityLaneIndex ?? 0));
    },

    /** Every resource and lane of a type, parents before lanes within each family. */
    async ofType(organisationId: number, resourceTypeId: number): Promise<CatalogueRow[]> {
      return db
        .selectFrom('resources')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('resourceTypeId', '=', resourceTypeId)
        .orderBy('id')
        .execute();
    },

    /**
     * Reservations (not cancelled) on these lanes overlapping `range`, as intervals by lane.
     * The start bound keeps the index range scan to the window that can overlap.
     */
    async busy(laneIds: number[], range: Interval): Promise<Map<number, Interval[]>> {
      const byLane = new Map<number, Interval[]>(laneIds.map((id) => [id, []]));
      if (laneIds.length === 0) return byLane;
      const rows = await db
        .selectFrom('reservations')
        .select(['resourceId', 'startTime', 'endTime'])
        .where('resourceId', 'in', laneIds)
        .where('startTime', '>', new Date(range.start - MAX_RESERVATION_MS).toISOString())
        .where('startTime', '<', new Date(range.end).toISOString())
        .where('endTime', '>', new Date(range.start).toISOString())
        .where('status', '!=', 'cancelled')
        .execute();
      for (const row of rows) {
        byLane.get(row.resourceId!)?.push({ start: Date.parse(row.startTime), end: Date.parse(row.endTime) });
      }
      return byLane;
    },

    /** Serialises bookings of one resource type (PostgreSQL row lock; SQLite transactions are serial). */
    async lockType(resourceTypeId: number): Promise<void> {
      if (dialect !== 'postgres') return;
      await db
        .selectFrom('resourceTypes')
        .select('id')
        .where('id', '=', resourceTypeId)
        .forUpdate()
        .execute();
    },
  };
}

export type AvailabilityRepo = ReturnType<typeof createAvailabilityRepo>;
