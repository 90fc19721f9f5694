import { z } from 'zod';
import { entityId, pageQuery, positiveId } from '../../http/schemas.js';
import { EVENT_TYPES, type EventType } from '../outbox/schemas.js';

/** The event a test ping sends (`POST .../webhooks/:webhookId/test`); never in the outbox. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Endpoints one organisation may have (issue 24). */
export const MAX_ENDPOINTS_PER_ORGANISATION = 20;
export const URL_MAX = 2048;
const DESCRIPTION_MAX = 500;

export const WEBHOOK_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

// Shape only here; https, public address and length are the service's rules (one message each).
const url = z.string().describe(`https URL on a public address, at most ${URL_MAX} characters`);
const events = z
  .array(z.string().max(100))
  .min(1, 'must name at least one event type')
  .max(EVENT_TYPES.length)
  .describe(`event types to deliver: ${EVENT_TYPES.join(', ')}`);
const description = z.string().trim().max(DESCRIPTION_MAX).nullable();

export const createWebhookInput = z.strictObject({
  url,
  events,
  description: description.optional(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookInput>;

export const updateWebhookInput = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    status: z
      .enum(['active', 'paused'])
      .optional()
      .describe('paused: no deliveries until active again; `disabled` is set by the service'),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), 'must change something');
export type UpdateWebhookInput = z.infer<typeof updateWebhookInput>;

export const webhookParams = z.strictObject({ id: positiveId, webhookId: positiveId });
export const deliveryParams = z.strictObject({
  id: positiveId,
  webhookId: positiveId,
  deliveryId: positiveId,
});
export const deliveriesQuery = z.strictObject(pageQuery);
export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;

export const webhook = z.object({
  id: entityId,
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  description: z.string().nullable(),
  status: z.enum(WEBHOOK_STATUSES),
  createdAt: z.string(),
  updatedAt: z.string(),
  disabledAt: z.string().nullable().describe('when the service disabled it after 3 days of failures'),
});
export type Webhook = z.infer<typeof webhook>;

export const webhookWithSecret = webhook.extend({
  secret: z.string().describe('whsec_...: the signing secret, shown this once'),
});
export type WebhookWithSecret = z.infer<typeof webhookWithSecret>;

export const webhookList = z.object({ items: z.array(webhook) });

export const delivery = z.object({
  id: entityId,
  webhookId: entityId,
  eventId: z.string().describe('the webhook-id header of every attempt'),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Delivery = z.infer<typeof delivery>;

export const deliveryPage = z.object({ items: z.array(delivery), nextCursor: z.string().nullable() });
export type DeliveryPage = z.infer<typeof deliveryPage>;

export const isEventType = (type: string): type is EventType =>
  (EVENT_TYPES as readonly string[]).includes(type);
