import type { ColumnType } from 'kysely';
import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';

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
  /** The resource's share of its pool's round robin, 1..100 (migration 0065); lanes carry their parent's. */
  assignmentWeight: ColumnType<number, number | undefined, number>;
  /** The most keeping-time bookings it takes in one organisation-local day; null for no cap. */
  maxBookingsPerDay: ColumnType<number | null, number | null | undefined, number | null>;
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

/** The tables this module owns (declared into Database by its module.ts). */
export interface ResourceTables {
  resources: ResourcesTable;
  resourceListVersions: ResourceListVersionsTable;
}
