import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ResourcesTable } from '../../db/tables/resources.js';
import type { Interval } from './engine.js';

export type CatalogueRow = Selectable<ResourcesTable>;

export function createAvailabilityRepo(db: Executor) {
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
     * No reservation is longer than `lookbackMs`, so none starting earlier than that
     * before the range can reach into it: the index range scan stops there.
     */
    async busy(laneIds: number[], range: Interval, lookbackMs: number): Promise<Map<number, Interval[]>> {
      const byLane = new Map<number, Interval[]>(laneIds.map((id) => [id, []]));
      if (laneIds.length === 0) return byLane;
      const rows = await db
        .selectFrom('reservations')
        .select(['resourceId', 'startTime', 'endTime'])
        .where('resourceId', 'in', laneIds)
        .where('startTime', '>', new Date(range.start - lookbackMs).toISOString())
        .where('startTime', '<', new Date(range.end).toISOString())
        .where('endTime', '>', new Date(range.start).toISOString())
        .where('status', '!=', 'cancelled')
        .execute();
      for (const row of rows) {
        byLane.get(row.resourceId!)?.push({ start: Date.parse(row.startTime), end: Date.parse(row.endTime) });
      }
      return byLane;
    },
  };
}

export type AvailabilityRepo = ReturnType<typeof createAvailabilityRepo>;
