import type { Id, JsonText, Timestamp } from '../../db/column-types.js';

export interface RoutinesTable {
  id: Id;
  ownerId: number;
  name: string;
  description: string | null;
  /** IANA time zone the recurrence is expanded in. */
  timezone: string;
  /** First occurrence (RFC 5545 DTSTART) as a local date, `yyyy-MM-dd`. */
  startDate: string;
  /** JSON array of RFC 5545 lines (`RRULE:`, `EXDATE:`, `RDATE:`). */
  recurrence: JsonText;
  /** JSON array of task templates. */
  templates: JsonText;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** One row per instantiated occurrence: the unique (routine, date) pair makes runs idempotent. */
export interface RoutineRunsTable {
  id: Id;
  routineId: number;
  occurrenceDate: string;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface RoutineTables {
  routines: RoutinesTable;
  routineRuns: RoutineRunsTable;
}
