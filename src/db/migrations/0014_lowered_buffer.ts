import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * PostgreSQL's exclusion constraint (0012) refuses overlapping kept time, and a
 * reservation keeps its lane until `blocked_until`: its end plus the buffer its type
 * had when it was booked. Lowering a type's buffer must free the difference at once,
 * or availability offers time that booking then refuses. A trigger, like the
 * availability versions, so every writer of the type shrinks its reservations'
 * kept time in the same transaction. Only shrinking: a raised buffer leaves kept
 * time as it was (the booking check applies the new buffer; lengthening could make
 * existing reservations overlap). Only reservations still keeping time after now
 * change. SQLite books in one transaction and keeps no such column in use.
 */
export function loweredBuffer(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function reservations_shrink_kept_time() returns trigger language plpgsql
        set search_path from current as $$
        begin
          update reservations
             set blocked_until = end_time + make_interval(mins => new.buffer_time)
           where resource_type_id = new.id
             and status <> 'cancelled'
             and blocked_until > now()
             and blocked_until > end_time + make_interval(mins => new.buffer_time);
          return null;
        end $$
      `.execute(db);
      await sql`
        create trigger reservations_buffer_lowered
          after update of buffer_time on resource_types
          for each row when (new.buffer_time < old.buffer_time)
          execute function reservations_shrink_kept_time()
      `.execute(db);
    },
  };
}
