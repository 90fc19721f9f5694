import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * The busy read of availability (issue 26, `managerBusy`) from indexes that hold what it
 * reads. Migration 0027's `events_busy_idx` found a manager's opaque, unmirrored events by
 * calendar and start, but every end time and recurrence was then looked up in the table:
 * most of an answer's cost with thousands of events. It becomes two partial indexes, one
 * per half of the read: single events with their end (the aggregated read needs nothing
 * else), and recurring ones by calendar and start (few; their rows are read). Each event
 * is in at most one, so writes keep one busy index entry per event, as before.
 */
export function busyRead(dialect: Dialect): Migration {
  const busy = `transparency = 'opaque' and booking_reservation_id is null`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql
        .raw(`create index events_busy_single_idx on events (calendar_id, start_time, end_time, occurs_until)
          where ${busy} and recurrence is null`)
        .execute(db);
      await sql
        .raw(`create index events_busy_series_idx on events (calendar_id, start_time, occurs_until)
          where ${busy} and recurrence is not null`)
        .execute(db);
      await sql.raw('drop index events_busy_idx').execute(db);
      // PostgreSQL plans with statistics: let it see the new indexes at once.
      if (dialect === 'postgres') await sql.raw('analyze events').execute(db);
    },
  };
}
