import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A lane's lapsed holds and unpaid bookings (`lapsedAt` in reservation-time.ts: held or
 * pending payment, `expires_at` passed), which the booking path's type read asks about every
 * lane before it books. `reservations_lane_expiry_idx` keeps every row that ever had an expiry
 * (expired and cancelled holds too), and PostgreSQL's generic plan of that read, made before
 * the table has statistics (a prepared statement's sixth run on a new database), scanned each
 * lane's whole `reservations_lane_made_idx` instead: about 1.7 ms of PostgreSQL CPU a booking
 * at 5,000 reservations, growing with them. Over exactly the statuses the read names, the index
 * is the plan whatever the statistics, and confirmed bookings never enter it.
 */
export function laneLapsingIndex(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('reservations_lane_lapsing_idx')
        .on('reservations')
        .columns(['resource_id', 'expires_at'])
        .where(sql<boolean>`status in ('held', 'pending_payment')`)
        .execute();
    },
  };
}
