import type { Db } from '../../db/database.js';
import { type AttemptsRepo, createAttemptsRepo } from './attempts-repo.js';
import { createDeliveriesRepo, type DeliveriesRepo } from './deliveries-repo.js';
import { createDispatchRepo, type DispatchRepo } from './dispatch-repo.js';
import { createEndpointsRepo, type EndpointsRepo } from './endpoints-repo.js';

export type {
  DeliveryRow,
  EndpointRow,
  NewDelivery,
  WebhookDeliveriesTable,
  WebhookDispatchPositionsTable,
  WebhookEndpointsTable,
  WebhookTables,
} from './tables.js';

/** The webhooks repos in one object, as the service's use cases share it (one per service: the dispatcher's position is made once). */
export interface WebhooksRepo extends EndpointsRepo, DispatchRepo, DeliveriesRepo, AttemptsRepo {}

export function createWebhooksRepo(db: Db): WebhooksRepo {
  return {
    ...createEndpointsRepo(db),
    ...createDispatchRepo(db),
    ...createDeliveriesRepo(db),
    ...createAttemptsRepo(db),
  };
}
