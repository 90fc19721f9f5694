import type { Kysely, Migration } from 'kysely';

/**
 * Round robin's count (assignment.ts `rankOffers`, DECISIONS.md "Teams"): the bookings of the
 * type keeping their time on each lane, made in the last 30 days, with the latest made. The
 * lane's only index before, `reservations_lane_time_idx`, orders by start time, so the count
 * read every reservation the lanes ever had, from the table. This index orders a lane's
 * rows of a type by when they were made and carries the columns the keeping-time filter
 * reads (status, expires_at): the count reads only the index entries of the window, never
 * the table (an index-only scan on PostgreSQL once the rows are visible to all).
 */
export function laneBookingsMadeIndex(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('reservations_lane_made_idx')
        .on('reservations')
        .columns(['resource_id', 'resource_type_id', 'created_at', 'status', 'expires_at'])
        .execute();
    },
  };
}
