import type { Actor } from '../../lib/actor.js';
import { createWebhooksContext, type WebhooksServiceDeps } from './context.js';
import { createDispatcher } from './dispatcher.js';
import { createEndpointDeliveries } from './endpoint-deliveries.js';
import { createEndpoints } from './endpoints.js';
import { dispatchOnNewEvents } from './jobs.js';
import { purgeDeliveries } from './retention.js';
import type {
  CreateWebhookInput,
  DeliveriesQuery,
  Delivery,
  DeliveryPage,
  UpdateWebhookInput,
  Webhook,
  WebhookWithSecret,
} from './schemas.js';
import { createSending } from './sending.js';

export type { WebhooksServiceDeps } from './context.js';
export { TEST_PINGS_PER_MINUTE } from './endpoint-deliveries.js';
export { WEBHOOK_DELIVER_JOB, WEBHOOK_DISPATCH_JOB, WEBHOOK_PURGE_JOB, webhookJobs } from './jobs.js';
export { backoffMs, FIRST_BACKOFF_MS, MAX_BACKOFF_MS, RETRY_WINDOW_MS } from './retry-schedule.js';
export { IN_FLIGHT_PER_ENDPOINT } from './sending.js';

/**
 * Signed webhooks (DECISIONS.md "Events, webhooks and notifications"): endpoints and
 * their secrets, a dispatcher that turns outbox events into one delivery per matching
 * endpoint, and workers that send them (Standard Webhooks signatures) with exponential
 * backoff for up to 3 days. All sending is on the job queue, never a request's path.
 */
export interface WebhooksService {
  /** A new endpoint (at most MAX_ENDPOINTS_PER_ORGANISATION per organisation), its secret answered this once. */
  create(actor: Actor, organisationId: number, input: CreateWebhookInput): Promise<WebhookWithSecret>;
  /** The organisation's endpoints, oldest first. */
  list(actor: Actor, organisationId: number): Promise<{ items: Webhook[] }>;
  /** One endpoint of the organisation; 404 when there is none. */
  get(actor: Actor, organisationId: number, webhookId: number): Promise<Webhook>;
  /** Changes an endpoint; made active again, its failures start over and its due deliveries go. */
  update(
    actor: Actor,
    organisationId: number,
    webhookId: number,
    input: UpdateWebhookInput,
  ): Promise<Webhook>;
  /** Deletes an endpoint with its deliveries; 404 when there is none. */
  delete(actor: Actor, organisationId: number, webhookId: number): Promise<void>;
  /** A new secret, answered this once; the old one signs nothing from now on. */
  rotateSecret(actor: Actor, organisationId: number, webhookId: number): Promise<WebhookWithSecret>;
  /** Queues a `webhook.test` event to this endpoint only (whatever its status); answers its delivery. */
  test(actor: Actor, organisationId: number, webhookId: number): Promise<Delivery>;
  /** A page of the endpoint's deliveries, newest first. */
  deliveries(
    actor: Actor,
    organisationId: number,
    webhookId: number,
    query: DeliveriesQuery,
  ): Promise<DeliveryPage>;
  /** Sends a delivery again (failed, succeeded or waiting), with a fresh 3-day window. */
  retry(actor: Actor, organisationId: number, webhookId: number, deliveryId: number): Promise<Delivery>;
  /** Dispatches new outbox events into deliveries (what the dispatch job runs). */
  dispatch(): Promise<{ events: number; deliveries: number }>;
  /**
   * Sends the deliveries due now (what the delivery job runs: retries come due, leases of dead
   * instances run out), each endpoint on its own lanes; resolves once this instance's lanes are
   * all done and answers how many attempts they made meanwhile.
   */
  deliverDue(): Promise<number>;
  /** Deletes deliveries older than 30 days at `now`. */
  purge(now?: number): Promise<number>;
  /** Starts no attempt more; resolves once those in flight have ended (the app's close). */
  close(): Promise<void>;
}

/** The webhooks service; its outbox consumer registered as it is made (its jobs: module.ts). */
export function createWebhooksService(deps: WebhooksServiceDeps): WebhooksService {
  const ctx = createWebhooksContext(deps);
  const sending = createSending(ctx);
  const dispatcher = createDispatcher(ctx);
  const purge = (now?: number) => purgeDeliveries(ctx, now);
  dispatchOnNewEvents(ctx, { dispatchAll: dispatcher.dispatchAll, wake: sending.wake });
  return {
    ...createEndpoints(ctx),
    ...createEndpointDeliveries(ctx),
    dispatch: dispatcher.dispatch,
    deliverDue: sending.deliverDue,
    purge,
    close: sending.close,
  };
}
