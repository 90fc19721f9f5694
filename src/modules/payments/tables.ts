import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';

export type ProviderConnectStatus = 'not_connected' | 'pending' | 'active';

/** One row per organisation that ever started a payment connection. */
export interface OrganisationPaymentAccountsTable {
  id: Id;
  organisationId: number;
  providerAccountId: string | null;
  connectStatus: ProviderConnectStatus;
  chargesEnabled: Bool;
  payoutsEnabled: Bool;
  detailsSubmitted: Bool;
  /** JSON array of requirement names. */
  currentlyDue: JsonText;
  /** JSON array of requirement names. */
  pendingVerification: JsonText;
  disabledReason: string | null;
  /**
   * Idempotency key of the account creation of the current connection attempt:
   * concurrent onboarding calls send the same key and so share one provider
   * account; a disconnect replaces it, so a reconnect makes a new account.
   */
  connectionKey: string;
  syncedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

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

/** The tables this module owns (declared into Database by its module.ts). */
export interface PaymentTables {
  organisationPaymentAccounts: OrganisationPaymentAccountsTable;
  paymentEvents: PaymentEventsTable;
}
