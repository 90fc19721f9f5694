import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * PostgreSQL: the sequencer of migration 0062, planned without nested loops. With statistics
 * taken while no event waited for a position (autovacuum's usual view of the outbox), the
 * planner estimated one waiting row and joined the events to the numbered subquery in a nested
 * loop that ran the subquery, `nextval` included, once per waiting event: a burst of 1,000
 * events cost a million index reads and sequence values in one run (seconds of PostgreSQL CPU,
 * most of a booking's cost under load). Both sides of the join are the waiting events, found
 * through the partial index of unpositioned rows, so a hash join reads each of them once.
 */
export function outboxSequenceHashJoin(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql
        .raw(`create or replace function outbox_sequence(p_lock integer, p_batch integer) returns void
          language plpgsql set enable_nestloop = off as $$
          begin
            if not exists (select 1 from outbox_events where position is null) then return; end if;
            perform pg_advisory_xact_lock(p_lock, hashtext(current_schema()));
            update outbox_events e set position = p.position
              from (select id, nextval('outbox_event_positions') as position
                    from (select id from outbox_events where position is null order by id limit p_batch) pending) p
              where e.id = p.id and e.position is null;
          end $$`)
        .execute(db);
    },
  };
}
