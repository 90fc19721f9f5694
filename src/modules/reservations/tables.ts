import type { ColumnType } from 'kysely';
import type { Id, JsonText, Timestamp } from '../../db/column-types.js';
import type { AssignmentStrategy } from '../resource-types/tables.js';

export type ReservationStatus = 'held' | 'pending_payment' | 'confirmed' | 'cancelled' | 'expired';

/** Where a reservation's payment stands (set once its checkout exists). */
export type PaymentStatus = 'requires_payment' | 'paid' | 'refunded' | 'failed' | 'expired';

export type ReservationSource = 'api' | 'public_slug' | 'public_token' | 'mcp';

/** Whether the customer came, as staff marked it after the start (migration 0075). */
export type Attendance = 'attended' | 'no_show';

export interface ReservationsTable {
  id: Id;
  organisationId: number;
  /** Null once the type was deleted (history is kept). */
  resourceTypeId: number | null;
  /** The schedulable resource holding the time: a lane, or a resource without lanes; null once deleted. */
  resourceId: number | null;
  status: ReservationStatus;
  startTime: Timestamp;
  endTime: Timestamp;
  /**
   * Until when the reservation keeps its lane: its end plus the buffer after it (continuous
   * mode). PostgreSQL refuses overlapping kept time on a lane; null on rows from before.
   */
  blockedUntil: Timestamp | null;
  customerName: string;
  customerEmail: string;
  customerPhone: string | null;
  /**
   * JSON object of the customer's fields beyond name, email and phone: the type's
   * customerInfoFields, and `answers` (an object by question id) to its questions.
   */
  customerInfo: JsonText;
  notes: string | null;
  priceAmount: number | null;
  priceCurrency: string | null;
  source: ReservationSource;
  createdByUserId: number | null;
  /** The staff member who booked, cancelled or moved it past the type's booking rules; null otherwise. */
  rulesOverriddenByUserId: number | null;
  cancelledAt: Timestamp | null;
  /** Until when a `held` or `pending_payment` reservation keeps its time; null in every other status. */
  expiresAt: Timestamp | null;
  /** The recurring series it belongs to; null when it stands alone. */
  seriesId: number | null;
  /** The payment of a paid booking; all null until its checkout exists (migration 0021). */
  paymentStatus: PaymentStatus | null;
  /** Minor units. */
  paymentAmount: number | null;
  paymentCurrency: string | null;
  /** The connected account the checkout was made on: only its events touch this row. */
  paymentAccountId: string | null;
  paymentCheckoutId: string | null;
  paymentCheckoutUrl: string | null;
  paymentExpiresAt: Timestamp | null;
  /** The provider's payment, once paid. */
  paymentId: string | null;
  paymentRefundId: string | null;
  /** SHA-256 (base64url) of the customer's manage token (reservations/manage-link.ts); null on old member bookings. */
  manageTokenHash: string | null;
  /** The manage token sealed with ENCRYPTION_KEY, read back only to mail the link; null on rows stored before 0057. */
  manageTokenSealed: string | null;
  /** A public hold's client address, as a keyed hash (the per-IP hold limit counts it); else null. */
  publicClientHash: string | null;
  /**
   * The public reference customers see instead of the id: 8 random characters, unique per
   * organisation (reservations migration 0056). Every booking writes one; '' only on rows
   * written by hand, which the unique index leaves out.
   */
  reference: ColumnType<string, string | undefined, string>;
  /** The strategy that picked a pool booking's resource (migration 0066); null for a named resource. */
  assignmentStrategy: ColumnType<AssignmentStrategy | null, AssignmentStrategy | null | undefined>;
  /** Why that resource, in a sentence ("fewest bookings in the last 30 days (3, weight 1)"). */
  assignmentReason: ColumnType<string | null, string | null | undefined>;
  /**
   * A collective reservation's resources, in the order booked, as JSON (migration 0067); null
   * on a reservation of one resource and on parts.
   */
  resourceIds: ColumnType<string | null, string | null | undefined>;
  /**
   * Set on a part: a row that keeps one more resource's time for the collective reservation
   * it names, following its status. Parts are never answered as reservations.
   */
  partOf: ColumnType<number | null, number | null | undefined>;
  /** Null until staff mark it after the start (migration 0075). */
  attendance: ColumnType<Attendance | null, Attendance | null | undefined>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * One reminder mail sent (migration 0075): at most one row per reservation, reminder and
 * start, so a reminder goes once however many instances sweep, and again for a new start.
 */
export interface ReservationRemindersTable {
  reservationId: number;
  minutesBefore: number;
  /** The start it reminded of. */
  startTime: Timestamp;
  sentAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface ReservationTables {
  reservations: ReservationsTable;
  reservationReminders: ReservationRemindersTable;
  reservationLaneDays: ReservationLaneDaysTable;
}

/**
 * Round robin's running count (migration 0070): per lane, type, UTC day a row was made and
 * writer, how many rows keep their time for good there (kept by triggers on reservations).
 */
export interface ReservationLaneDaysTable {
  resourceId: number;
  resourceTypeId: number;
  /** YYYY-MM-DD (UTC) of the rows' `created_at`. */
  day: string;
  /** The PostgreSQL backend that wrote the changes counted here (0 on SQLite and for rows counted by the migration). */
  writer: number;
  /** May be below 0 for one writer; the sum over writers is the count. */
  bookings: number;
}
