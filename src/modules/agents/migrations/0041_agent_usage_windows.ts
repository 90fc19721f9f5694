import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * `agent_usage_windows`: per agent, what its uses add up to in the 24 hours before `since`
 * (the window of its last count), by kind. A count moves the window forward by taking off the
 * uses that left it, so it reads those few rows, not every use of the last day (issue 25: a
 * policy that counts a limit must not slow a call down as the day's uses grow). Its row is
 * also what counting locks: two instances never count one agent at once.
 */
export function agentUsageWindows(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('agent_usage_windows')
        .addColumn('agent_id', 'integer', (col) =>
          col.primaryKey().references('agents.id').onDelete('cascade'),
        )
        // Null until the first count: then every use of the window is summed.
        .addColumn('since', c.timestamp)
        .addColumn('booking_used', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('cancellation_used', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('spend_used', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      // The uses of an agent by time, every kind in one range (the window's sums read the
      // index alone); 0028's (agent, kind, time) needed a range per kind.
      await db.schema.dropIndex('agent_usage_agent_kind_idx').execute();
      await db.schema
        .createIndex('agent_usage_agent_time_idx')
        .on('agent_usage')
        .columns(['agent_id', 'created_at', 'kind', 'amount'])
        .execute();
    },
  };
}
