import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * A reservation's kept time (0012) on a lane is its end plus the type's buffer in
 * continuous mode, its end in shift mode (shift lanes keep no buffer). Whatever lowers
 * what a lane keeps (a lowered buffer, a switch to shift mode by the resource's, the
 * type's or the organisation's schedule, a move to another type) must free that time at
 * once, or availability offers time that booking then refuses. One trigger function for
 * all of them; it replaces 0014's, which knew the buffer but not the mode. Only
 * shrinking (a longer kept time could make existing reservations overlap), only
 * reservations still keeping time after now; the mode is resolved as the service
 * resolves it (resource, then type, then organisation; a lane follows its parent).
 * SQLite books in one transaction and keeps no such column in use.
 */
export function keptTimeFollowsRules(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`drop trigger reservations_buffer_lowered on resource_types`.execute(db);
      await sql`drop function reservations_shrink_kept_time()`.execute(db);
      await sql`
        create function reservations_fit_kept_time() returns trigger language plpgsql
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
             and r.status <> 'cancelled'
             and r.blocked_until > now()
             and r.blocked_until > r.end_time + make_interval(mins => kept.buffer_minutes);
          return null;
        end $$
      `.execute(db);
      const changes = [
        ['resources', ['schedule_policy', 'resource_type_id']],
        ['resource_types', ['schedule_policy', 'buffer_time']],
        ['organisations', ['schedule_policy']],
      ] as const;
      for (const [table, columns] of changes) {
        const changed = columns.map((column) => `old.${column} is distinct from new.${column}`).join(' or ');
        await sql
          .raw(`create trigger reservations_kept_time_rules after update of ${columns.join(', ')} on ${table}
            for each row when (${changed}) execute function reservations_fit_kept_time()`)
          .execute(db);
      }
    },
  };
}
