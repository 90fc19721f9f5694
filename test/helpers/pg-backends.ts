// What the other sessions of the test's PostgreSQL database are doing now (pg_stat_activity):
// tests that hold a lock or a turn wait for the requests they started to reach it.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/types.js';

export interface Backend {
  pid: number;
  /** Running a statement. */
  active: boolean;
  /** Waiting for a lock, held by `blockers`. */
  waitingForLock: boolean;
  blockers: number[];
}

/** The database's sessions besides the one asking, as `db` sees them. */
export async function otherBackends(db: Kysely<Database>): Promise<Backend[]> {
  const { rows } = await sql<Backend>`select pid, state = 'active' as active,
      coalesce(wait_event_type = 'Lock', false) as "waitingForLock", pg_blocking_pids(pid) as blockers
    from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(db);
  return rows;
}
