import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { resourceRows } from '../resources/ports.js';
import type { ResourcesTable } from '../resources/tables.js';

export type CatalogueRow = Selectable<ResourcesTable>;

/** The resources and lanes availability schedules, as stored. */
export function createCatalogueRepo(db: Executor) {
  const resources = () => db.selectFrom(resourceRows(db).as('resources'));
  return {
    /** A resource with its lanes, or a lane with its parent and siblings: parent first, lanes in order. */
    async family(organisationId: number, resourceId: number): Promise<CatalogueRow[]> {
      const row = await resources()
        .select(['id', 'parentResourceId'])
        .where('organisationId', '=', organisationId)
        .where('id', '=', resourceId)
        .executeTakeFirst();
      if (!row) return [];
      const parentId = row.parentResourceId ?? row.id;
      const rows = await resources()
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where((eb) => eb.or([eb('id', '=', parentId), eb('parentResourceId', '=', parentId)]))
        .execute();
      return rows.sort((a, b) => (a.capacityLaneIndex ?? 0) - (b.capacityLaneIndex ?? 0));
    },

    /** Every resource and lane of a type, parents before lanes within each family. */
    async ofType(organisationId: number, resourceTypeId: number): Promise<CatalogueRow[]> {
      return resources()
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('resourceTypeId', '=', resourceTypeId)
        .orderBy('id')
        .execute();
    },
  };
}

export type CatalogueRepo = ReturnType<typeof createCatalogueRepo>;
