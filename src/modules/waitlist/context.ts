import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { OutboxService } from '../outbox/service.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import { type createWaitlistRepo, type EntryRow, shownStatus, toEntry } from './repo.js';
import type { WaitlistEntry } from './schemas.js';

export interface WaitlistServiceDeps {
  db: Db;
  organisations: OrganisationsService;
  reservations: ReservationsService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  outbox: OutboxService;
  jobs: Pick<JobQueue, 'send'>;
  config: Pick<Config, 'encryptionKey'>;
  log?: FastifyBaseLogger | undefined;
}

/** What every waitlist use case is built from: the service's dependencies and its repo. */
export interface WaitlistContext extends WaitlistServiceDeps {
  repo: ReturnType<typeof createWaitlistRepo>;
}

/** An entry as answered: with its place in line while it waits. */
export const recordOf = async ({ repo }: WaitlistContext, row: EntryRow): Promise<WaitlistEntry> =>
  toEntry(row, shownStatus(row) === 'waiting' ? await repo.position(row) : null);
