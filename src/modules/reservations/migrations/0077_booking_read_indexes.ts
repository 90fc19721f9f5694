import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Indexes that keep every booking's read (availability/booking-reads-repo.ts) on a plan that
 * reads only the requested time, whatever plan PostgreSQL caches for it. The read is a prepared
 * statement, and from its sixth run on a connection PostgreSQL may keep a generic plan, made
 * from whatever statistics the table had then (on a new database, none; with a few rows, a
 * tiny table). Two of its probes then scanned every booking a lane ever had: about 1.7 ms of
 * PostgreSQL CPU a booking at 5,000 reservations, growing with them.
 *
 * - `reservations_lane_lapsing_idx`: a lane's lapsed holds and unpaid bookings (`lapsedAt`:
 *   held or pending payment, `expires_at` passed), over exactly those statuses. The index it
 *   had, `reservations_lane_expiry_idx`, keeps every row that ever had an expiry.
 * - `reservations_lane_made_idx` leads with the type: round robin's count names both the type
 *   and the lane, so it reads the same entries, and the read's busy-time probe, which names
 *   only the lane, can no longer take it for a lane-wide scan instead of the start-time range
 *   of `reservations_lane_time_idx`.
 */
export function bookingReadIndexes(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('reservations_lane_lapsing_idx')
        .on('reservations')
        .columns(['resource_id', 'expires_at'])
        .where(sql<boolean>`status in ('held', 'pending_payment')`)
        .execute();
      await db.schema.dropIndex('reservations_lane_made_idx').execute();
      await db.schema
        .createIndex('reservations_lane_made_idx')
        .on('reservations')
        .columns(['resource_type_id', 'resource_id', 'created_at', 'status', 'expires_at'])
        .execute();
    },
  };
}
