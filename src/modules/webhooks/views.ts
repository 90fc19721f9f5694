import type { DeliveryRow, EndpointRow } from './repo.js';
import { type Delivery, isEventType, type Webhook } from './schemas.js';

/** An endpoint as the API answers it (its secret never). */
export const webhookView = (row: EndpointRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: (JSON.parse(row.events) as string[]).filter(isEventType),
  description: row.description,
  status: row.status,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  disabledAt: row.disabledAt,
});

/** A delivery as the API answers it. */
export const deliveryView = (row: DeliveryRow): Delivery => ({
  id: row.id,
  webhookId: row.endpointId,
  eventId: row.eventId,
  eventType: row.eventType,
  status: row.status,
  attempts: Number(row.attempts),
  lastStatusCode: row.lastStatusCode,
  lastError: row.lastError,
  nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
  createdAt: row.createdAt,
});
