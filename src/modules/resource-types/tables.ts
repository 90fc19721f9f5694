import type { ColumnType, Generated } from 'kysely';
import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';

export type BookingMode = 'SINGLE_RESOURCE' | 'POOL' | 'BOTH';

/** How a pool booking picks its resource among the free ones (migration 0064). */
export type AssignmentStrategy = 'first_free' | 'round_robin' | 'least_busy_day';

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
  /** JSON array of up to 3 reminders `{minutesBefore}` mailed to each booking's customer (migration 0074). */
  reminders: ColumnType<JsonText, JsonText | undefined, JsonText>;
  waitlistEnabled: Bool;
  recurringEnabled: Bool;
  bookingMode: BookingMode;
  assignment: ColumnType<AssignmentStrategy, AssignmentStrategy | undefined, AssignmentStrategy>;
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

/** The tables this module owns (declared into Database by its module.ts). */
export interface ResourceTypeTables {
  resourceTypes: ResourceTypesTable;
}
