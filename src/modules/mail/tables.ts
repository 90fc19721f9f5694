import type { Id, Timestamp } from '../../db/column-types.js';

/** Where a consumer of the outbox stands: the id of the last event it finished. */
export interface MailConsumerPositionsTable {
  /** `mail`: one row per consumer. */
  consumer: string;
  lastEventId: string;
  updatedAt: Timestamp;
}

export type MailMessageStatus = 'sending' | 'sent' | 'failed';

/**
 * One row per mail the consumer meant to send: the claim that keeps it to one send.
 * `dedupeKey` (`<event id>/<kind>/<recipient>`) is unique; a row `sending` whose
 * `claimedAt` is older than the lease is a send that crashed and may be taken again.
 */
export interface MailMessagesTable {
  id: Id;
  dedupeKey: string;
  eventId: string | null;
  kind: string;
  organisationId: number | null;
  /** Lowercase address. */
  recipient: string;
  subject: string;
  /** The Message-ID header: derived from the dedupe key, the same on a resend. */
  messageId: string;
  status: MailMessageStatus;
  attempts: number;
  /** Last SMTP failure (the server's answer, never credentials). */
  lastError: string | null;
  claimedAt: Timestamp | null;
  sentAt: Timestamp | null;
  createdAt: Timestamp;
}

/**
 * A reservation whose calendar invitation went out: its SEQUENCE (the reschedules seen)
 * and the last reschedule event counted, so counting the same event twice is a no-op.
 */
export interface MailCalendarInvitationsTable {
  reservationId: number;
  sequence: number;
  lastRescheduleEventId: string | null;
  updatedAt: Timestamp;
}

export interface MailTables {
  mailConsumerPositions: MailConsumerPositionsTable;
  mailMessages: MailMessagesTable;
  mailCalendarInvitations: MailCalendarInvitationsTable;
}
