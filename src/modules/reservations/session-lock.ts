import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';

/**
 * Runs `work` while holding the advisory lock `key` (its two int keys), so the writes that
 * take it count and insert one after the other. PostgreSQL: on one connection holding a
 * session advisory lock, each statement still committing by itself, so the lane's exclusion
 * constraint works as in every booking and the next holder sees what this one inserted.
 * SQLite already books in one transaction on its only connection, and a transaction is
 * serial by itself: `work` runs on `executor`.
 */
export function underSessionLock<T>(
  executor: Executor,
  dialect: Dialect,
  key: RawBuilder<unknown>,
  work: (executor: Executor) => Promise<T>,
): Promise<T> {
  if (dialect !== 'postgres' || executor.isTransaction) return work(executor);
  return executor.connection().execute(async (pinned) => {
    await sql`select pg_advisory_lock(${key})`.execute(pinned);
    try {
      return await work(pinned);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(pinned);
    }
  });
}
