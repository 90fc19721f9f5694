import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * PostgreSQL: a sequencer run in one round trip (repo.ts `sequence`). The lock is taken first,
 * then the positions given in a statement of its own: a PL/pgSQL statement reads a fresh
 * snapshot (READ COMMITTED), so it sees what the run before it committed. As a client's
 * transaction this was five round trips, each waiting for a pooled connection under load,
 * between a booking's commit and its webhook (issue 49). SQLite needs no sequencer.
 */
export function outboxSequenceFunction(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql
        .raw(`create function outbox_sequence(p_lock integer, p_batch integer) returns void
          language plpgsql as $$
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
