import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import type { Columns } from './columns.js';

/**
 * Booking without a lock on the whole type. Each reservation records until when it
 * keeps its lane (its end plus the buffer that follows it). On PostgreSQL an exclusion
 * constraint then refuses two live reservations whose kept time overlaps on one lane,
 * so concurrent bookings need no lock: the database refuses the loser. Keeping only the
 * buffer after each reservation is enough: two reservations whose gap is shorter than
 * the buffer overlap in kept time whichever comes first. Without btree_gist (not
 * installable everywhere), lane equality is the overlap of one-point ranges. Rows from
 * before this migration keep their lane until their end. SQLite books in one
 * transaction on its single connection and needs no constraint.
 */
export function bookingOverlap(c: Columns, dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('blocked_until', c.timestamp).execute();
      if (dialect !== 'postgres') return;
      await sql`
        alter table reservations add constraint reservations_no_overlap exclude using gist (
          int4range(resource_id, resource_id, '[]') with &&,
          tstzrange(start_time, coalesce(blocked_until, end_time)) with &&
        ) where (status <> 'cancelled' and resource_id is not null)
      `.execute(db);
    },
  };
}
