import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';
import type { Columns } from './columns.js';

/**
 * Holds and expiry (issue 22). A `held` or `pending_payment` reservation keeps its time
 * until `expires_at` and not a moment longer, whether or not the expiry job has marked it
 * `expired` yet: every reader compares `expires_at` with the clock (src/modules/reservations/reservation-time.ts).
 *
 * - `expires_at` (set only while held or pending payment) and `series_id` (recurring series).
 * - The covering index of the overlap reads gains `expires_at`, so those reads still never
 *   touch the table rows; it replaces 0004's.
 * - Two partial indexes over the few rows that can expire (`expires_at` is null on every
 *   other row, so confirmed bookings never enter them): by time for the expiry job, and by
 *   lane for a booking that sweeps the lapsed holds off the lane it takes.
 * - PostgreSQL: the exclusion constraint (0012) counts the statuses that keep time, so an
 *   `expired` reservation no longer blocks; a lapsed hold still does until it is marked,
 *   which the booking does itself (the constraint cannot see the clock). The kept-time
 *   trigger function (0016) leaves cancelled and expired reservations alone alike.
 */
export function reservationHolds(c: Columns, dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('expires_at', c.timestamp).execute();
      await db.schema.alterTable('reservations').addColumn('series_id', 'integer').execute();
      await db.schema
        .createIndex('reservations_lane_time_idx')
        .on('reservations')
        .columns(['resource_id', 'start_time', 'end_time', 'status', 'expires_at'])
        .execute();
      await db.schema.dropIndex('reservations_resource_start_idx').execute();
      await db.schema
        .createIndex('reservations_expiry_idx')
        .on('reservations')
        .column('expires_at')
        .where(sql.ref('expires_at'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('reservations_lane_expiry_idx')
        .on('reservations')
        .columns(['resource_id', 'expires_at'])
        .where(sql.ref('expires_at'), 'is not', null)
        .execute();
      if (dialect !== 'postgres') return;
      await sql`alter table reservations drop constraint reservations_no_overlap`.execute(db);
      await sql`
        alter table reservations add constraint reservations_no_overlap exclude using gist (
          int4range(resource_id, resource_id, '[]') with &&,
          tstzrange(start_time, coalesce(blocked_until, end_time)) with &&
        ) where (status in ('held', 'pending_payment', 'confirmed') and resource_id is not null)
      `.execute(db);
      await sql`
        create or replace function reservations_fit_kept_time() returns trigger language plpgsql
        set search_path from current as $$
        begin
          update reservations r
             set blocked_until = r.end_time + make_interval(mins => kept.buffer_minutes)
            from (
              select lane.id as lane_id,
                     case when coalesce(p.schedule_policy::jsonb ->> 'availabilityMode',
                                        t.schedule_policy::jsonb ->> 'availabilityMode',
                                        o.schedule_policy::jsonb ->> 'availabilityMode',
                                        'continuous') = 'shifts'
                          then 0 else t.buffer_time end as buffer_minutes
                from resources lane
                join resources p on p.id = coalesce(lane.parent_resource_id, lane.id)
                join resource_types t on t.id = p.resource_type_id
                join organisations o on o.id = p.organisation_id
               where case tg_table_name
                       when 'resources' then p.id = new.id
                       when 'resource_types' then t.id = new.id
                       else o.id = new.id
                     end
            ) kept
           where r.resource_id = kept.lane_id
             and r.status in ('held', 'pending_payment', 'confirmed')
             and r.blocked_until > now()
             and r.blocked_until > r.end_time + make_interval(mins => kept.buffer_minutes);
          return null;
        end $$
      `.execute(db);
    },
  };
}
