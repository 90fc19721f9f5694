import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import { coalescing } from '../../lib/coalescing.js';
import type { OrganisationsService } from '../organisations/service.js';
import { createOutboxRepo, type OutboxRepo } from './repo.js';

/**
 * Maps stored data of a format other than 'record' to the API record it stands for, at
 * the time the event occurred (the reservations module maps its rows; see module.ts).
 */
export type RecordMappers = Readonly<Record<string, (stored: unknown, occurredAt: string) => unknown>>;

/** What the outbox service is built from (module.ts hands it over). */
export interface OutboxServiceDeps {
  db: Db;
  config: Pick<Config, 'outboxPollMs'>;
  jobs: Pick<JobQueue, 'repeat'>;
  log?: Pick<FastifyBaseLogger, 'warn'>;
  organisations: Pick<OrganisationsService, 'requireMembership' | 'list'>;
  records: RecordMappers;
}

/** What every outbox use case is built from: the service's dependencies, the repo and the sequencer. */
export interface OutboxContext extends OutboxServiceDeps {
  repo: OutboxRepo;
  /** Gives the committed events their positions (repo.ts `sequence`) before a read. */
  sequence: () => Promise<void>;
}

export function createOutboxContext(deps: OutboxServiceDeps): OutboxContext {
  const repo = createOutboxRepo(deps.db);
  // The consumers of one instance read at the same moments (each poll): one sequencer run in
  // flight serves them all, and a call during a run waits for the next, which sees its writes.
  const sequence = coalescing(() => repo.sequence());
  return { ...deps, repo, sequence };
}
