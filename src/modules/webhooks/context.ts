import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { EventWriter, OutboxConsumerPort } from '../outbox/service.js';
import { createWebhooksRepo, type WebhooksRepo } from './repo.js';

export interface WebhooksServiceDeps {
  db: Db;
  config: Config;
  jobs: JobQueue;
  log?: FastifyBaseLogger;
  /** Counts test pings per endpoint (shared across instances when Redis is configured). */
  store: Pick<EphemeralStore, 'hit'>;
  organisations: Pick<OrganisationsService, 'requireMembership'>;
  /** The outbox: read by the dispatcher, which it runs soon after new events; webhook.disabled written to it. */
  outbox: OutboxConsumerPort & EventWriter;
}

/** What every webhooks use case is built from: the service's dependencies and the one repo they share. */
export interface WebhooksContext extends WebhooksServiceDeps {
  repo: WebhooksRepo;
}

export function createWebhooksContext(deps: WebhooksServiceDeps): WebhooksContext {
  return { ...deps, repo: createWebhooksRepo(deps.db) };
}
