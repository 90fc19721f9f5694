import type { ColumnType, Generated } from 'kysely';
import type { WaitlistStatus } from './schemas.js';

export interface WaitlistEntriesTable {
  id: Generated<number>;
  organisationId: number;
  resourceTypeId: number;
  /** The resource asked for; null for the type's pool. */
  resourceId: number | null;
  /** A collective booking's resources as JSON, in the order asked (migration 0068); null otherwise. */
  resourceIds: ColumnType<string | null, string | null | undefined>;
  startTime: string;
  endTime: string;
  customerName: string;
  customerEmail: string;
  customerPhone: string | null;
  /** The answers to the type's customerInfoFields and (as `answers`) to its questions, as JSON text. */
  customerInfo: string;
  notes: string | null;
  status: WaitlistStatus;
  /** While offered (and after): the held reservation of the offer. */
  offerReservationId: number | null;
  offerExpiresAt: string | null;
  source: string;
  createdByUserId: number | null;
  /** SHA-256 of the customer's manage token; its offer's hold carries the same. */
  manageTokenHash: string | null;
  /** The token sealed for its mails (reservations/manage-link.ts); null on entries stored before 0057. */
  manageTokenSealed: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WaitlistConsumerTable {
  name: string;
  /** The last outbox event id handled; null before the first. */
  position: string | null;
  /** The run holding the lease, and until when. */
  claim: string | null;
  claimedUntil: string | null;
}

export interface WaitlistTables {
  waitlistEntries: WaitlistEntriesTable;
  waitlistConsumer: WaitlistConsumerTable;
}
