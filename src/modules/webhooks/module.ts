import { defineModule } from '../../module.js';
import { webhooks } from './migrations/0024_webhooks.js';
import { webhookDeliveryLanes } from './migrations/0051_webhook_delivery_lanes.js';
import { webhookClaimFunction } from './migrations/0061_webhook_claim_function.js';
import { webhookClaimBatches } from './migrations/0063_webhook_claim_batches.js';
import { webhooksPrivacy } from './privacy.js';
import type { WebhookTables } from './repo.js';
import { webhookRoutes } from './routes.js';
import { createWebhooksService, type WebhooksService, webhookJobs } from './service.js';

declare module '../../module.js' {
  interface Services {
    webhooks: WebhooksService;
  }
}

declare module '../../db/types.js' {
  interface Database extends WebhookTables {}
}

export const webhooksModule = defineModule({
  name: 'webhooks',
  tables: ['webhookEndpoints', 'webhookDispatchPositions', 'webhookDeliveries'],
  service: (deps, services) =>
    createWebhooksService({
      ...deps,
      organisations: services.organisations,
      outbox: services.outbox,
    }),
  routes: [{ prefix: '/api/organisations', plugin: webhookRoutes }],
  privacy: webhooksPrivacy,
  migrations: {
    '0024_webhooks': webhooks,
    '0051_webhook_delivery_lanes': webhookDeliveryLanes,
    '0061_webhook_claim_function': webhookClaimFunction,
    '0063_webhook_claim_batches': webhookClaimBatches,
  },
  jobs: webhookJobs,
});
