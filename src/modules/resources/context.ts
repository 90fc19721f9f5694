import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/database.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { CalendarService } from '../calendars/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourceRepo } from './repo.js';

export interface ResourcesServiceDeps {
  db: Db;
  config: Config;
  organisations: OrganisationsService;
  resourceTypes: ResourceTypesService;
  calendars: Pick<CalendarService, 'isOwnedBy'>;
}

/** What every resources use case is built from. */
export interface ResourcesContext extends ResourcesServiceDeps {
  repo: ResourceRepo;
  /** The repo on `executor` (a transaction), in the database's dialect. */
  repoFor(executor: Executor): ResourceRepo;
  /** Tells the `onTimeAdded` listeners, after a committed write that may add bookable time to a type. */
  timeAdded(organisationId: number, resourceTypeId: number): void;
}

export async function findOrThrow(r: ResourceRepo, organisationId: number, id: number, lock = false) {
  const row = lock ? await r.findForUpdate(organisationId, id) : await r.find(organisationId, id);
  if (!row) throw notFound('Resource');
  return row;
}

export function refuseLane(row: { isCapacityChild: boolean | number }, action: string) {
  if (row.isCapacityChild) {
    throw conflict(
      'CONFLICT',
      `Capacity lanes are managed through their parent resource; ${action} the parent instead`,
    );
  }
}
