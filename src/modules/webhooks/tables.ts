import type { Generated, Selectable } from 'kysely';
import type { JsonText, Timestamp } from '../../db/column-types.js';
import type { DeliveryStatus, WebhookStatus } from './schemas.js';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  organisationId: number;
  url: string;
  /** JSON array of event types. */
  events: JsonText;
  description: string | null;
  status: WebhookStatus;
  /** `encryptSecret(ENCRYPTION_KEY, secret, 'webhook:<id>')`: read back only to sign. */
  secretSealed: string;
  failingSince: Timestamp | null;
  disabledAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface WebhookDispatchPositionsTable {
  consumer: string;
  lastEventId: string | null;
  updatedAt: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpointId: number;
  organisationId: number;
  eventId: string;
  eventType: string;
  userId: number | null;
  /** The exact body every attempt sends. */
  payload: JsonText;
  status: DeliveryStatus;
  attempts: Generated<number>;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Timestamp | null;
  /** Automatic retries stop after this (3 days after creation or a manual retry). */
  retryUntil: Timestamp;
  /** The lease of the attempt in flight: nobody else claims it before then. */
  claimedUntil: Timestamp | null;
  /** The claim (one lane's batch) the lease belongs to: the unit counted as one attempt in flight. */
  claimSlot: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface WebhookTables {
  webhookEndpoints: WebhookEndpointsTable;
  webhookDispatchPositions: WebhookDispatchPositionsTable;
  webhookDeliveries: WebhookDeliveriesTable;
}

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDelivery = Omit<
  WebhookDeliveriesTable,
  'id' | 'attempts' | 'lastStatusCode' | 'lastError' | 'claimedUntil' | 'claimSlot'
>;
