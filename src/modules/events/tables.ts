import type { Generated } from 'kysely';
import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';

export interface EventsTable {
  id: Id;
  calendarId: number;
  title: string;
  description: string | null;
  location: string | null;
  /** First occurrence (RFC 5545 DTSTART), UTC. */
  startTime: Timestamp;
  endTime: Timestamp;
  allDay: Bool;
  /** IANA time zone the recurrence is expanded in. */
  timezone: string;
  /** JSON array of RFC 5545 lines (`RRULE:`, `EXDATE:`, `RDATE:`), null when not recurring. */
  recurrence: JsonText | null;
  /** JSON array of `{minutes, method}`. */
  reminders: JsonText;
  /** End of the last occurrence; null for a series without end. Range queries filter on it. */
  occursUntil: Timestamp | null;
  /** Filled by external calendar sync only; null for local events. */
  externalProvider: string | null;
  externalId: string | null;
  externalEtag: string | null;
  externalLastSyncedAt: Timestamp | null;
  /** `opaque` (busy) or `transparent` (free); migration 0027. */
  transparency: Generated<'opaque' | 'transparent'>;
  /** The reservation this event mirrors in its resource's booking calendar; null for every other event. */
  bookingReservationId: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface EventTables {
  events: EventsTable;
}
