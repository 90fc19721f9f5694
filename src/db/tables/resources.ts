import type { ColumnType, Generated } from 'kysely';
import type { Bool, Id, JsonText, Timestamp } from '../column-types.js';

export type BookingMode = 'SINGLE_RESOURCE' | 'POOL' | 'BOTH';
export type ReservationStatus = 'held' | 'pending_payment' | 'confirmed' | 'cancelled' | 'expired';
/** Where a reservation's payment stands (set once its checkout exists). */
export type PaymentStatus = 'requires_payment' | 'paid' | 'refunded' | 'failed' | 'expired';
export type ReservationSource = 'api' | 'public_slug' | 'public_token' | 'mcp';

export interface ResourceTypesTable {
  id: Id;
  organisationId: number;
  name: string;
  description: string | null;
  /** Minutes. */
  minBookingDuration: number;
  /** Minutes kept clear before and after every reservation (continuous mode). */
  bufferTime: number;
  /** JSON array of customer field names a booking must fill. */
  customerInfoFields: JsonText;
  /** JSON array of the booking questions `{id, label, kind, required, options?}` (migration 0058). */
  questions: ColumnType<JsonText, JsonText | undefined, JsonText>;
  waitlistEnabled: Bool;
  recurringEnabled: Bool;
  bookingMode: BookingMode;
  color: string | null;
  icon: string | null;
  /** The Schedule object as JSON (holds the type's availabilityMode); null when unset. */
  schedulePolicy: JsonText | null;
  pricingEnabled: Bool;
  paymentRequired: Bool;
  /** Minor units. */
  priceAmount: number | null;
  /** Lowercase ISO 4217. */
  priceCurrency: string | null;
  isActive: Bool;
  /** The BookingRules object as JSON (notice, advance, per-customer limits); null when none. */
  bookingRules: JsonText | null;
  /** Minutes a paid booking keeps its time waiting for payment (5..1440). */
  paymentWindowMinutes: Generated<number>;
  /** How long a waitlist offer holds freed time (minutes; migration 0026). */
  waitlistOfferMinutes: Generated<number>;
  /** Longest reservation ever booked on the type, so overlap reads look back only that far. */
  longestReservationMinutes: Generated<number>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ResourcesTable {
  id: Id;
  organisationId: number;
  resourceTypeId: number;
  name: string;
  description: string | null;
  capacity: number;
  managedById: number | null;
  /** Resource-level Schedule override as JSON; lanes never have one (they follow their parent). */
  schedulePolicy: JsonText | null;
  parentResourceId: number | null;
  isCapacityChild: Bool;
  capacityLaneIndex: number | null;
  /** Public booking token (a shareable link, shown to managers again, so kept readable). */
  publicToken: string;
  isActive: Bool;
  /** Unavailable while the manager has an opaque event in any of their calendars (migration 0027). */
  blockOnManagerCalendars: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** The manager's calendar confirmed reservations are mirrored into; null for none. */
  bookingCalendarId: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

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
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * The version of an organisation's resources, raised by triggers on every write to
 * them (migration 0015); labels the resource list's cached answers. No row means
 * version 0. A bigint, compared, never counted with.
 */
export interface ResourceListVersionsTable {
  organisationId: number;
  version: ColumnType<string | number, number, never>;
}

export interface ResourceTables {
  resourceTypes: ResourceTypesTable;
  resources: ResourcesTable;
  resourceListVersions: ResourceListVersionsTable;
  reservations: ReservationsTable;
}
