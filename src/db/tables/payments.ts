import type { Timestamp } from '../column-types.js';

/**
 * A payment-provider webhook event already received (migration 0021): its id is stable
 * across redeliveries, so a second delivery of one event changes nothing.
 */
export interface PaymentEventsTable {
  eventId: string;
  eventType: string;
  accountId: string | null;
  receivedAt: Timestamp;
}

export interface PaymentTables {
  paymentEvents: PaymentEventsTable;
}
