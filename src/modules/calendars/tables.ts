import type { Bool, Id, Timestamp } from '../../db/column-types.js';

export interface CalendarsTable {
  id: Id;
  ownerId: number;
  name: string;
  /** `#rrggbb`. */
  color: string;
  /** IANA time zone name. */
  timezone: string;
  description: string | null;
  /** At most one per owner (a partial unique index); the default cannot be deleted. */
  isDefault: Bool;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface CalendarTables {
  calendars: CalendarsTable;
}
