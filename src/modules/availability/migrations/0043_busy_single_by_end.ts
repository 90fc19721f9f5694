import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * Single busy events by calendar and end (migration 0037 kept them by start). A read of a
 * range wants events ending after its start and starting before its end; by start, the
 * index gave every event that ever started before the range's end, a synced calendar's
 * whole history growing with every past year. By end it gives those ending after the
 * range's start: the range's own and the ones still ahead, which a calendar holds few
 * of. `occurs_until` leaves the index: a single event's is its end.
 */
export function busySingleByEnd(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql.raw('drop index events_busy_single_idx').execute(db);
      await sql
        .raw(`create index events_busy_single_idx on events (calendar_id, end_time, start_time)
          where transparency = 'opaque' and booking_reservation_id is null and recurrence is null`)
        .execute(db);
      if (dialect === 'postgres') await sql.raw('analyze events').execute(db);
    },
  };
}
