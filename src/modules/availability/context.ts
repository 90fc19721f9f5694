import type { Db } from '../../db/database.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { AvailabilityRepo } from './repo.js';

/** What availability needs of an organisation: its zone and scheduling defaults. */
export interface OrganisationSchedule {
  organisationId: number;
  timezone: string;
  schedulePolicy: SchedulePolicy | null;
}

/** What the availability service is built from. */
export interface AvailabilityDeps {
  db: Db;
  organisations: OrganisationsService;
  resourceTypes: ResourceTypesService;
}

/** What the use cases share: the database, the types they judge by, and the reads of answers. */
export interface AvailabilityContext {
  db: Db;
  resourceTypes: ResourceTypesService;
  repo: AvailabilityRepo;
}
