import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * Approvals (issue 25, DECISIONS.md "Agents acting safely"): a tool call an agent's
 * policy sent to its owner, stored with its arguments to run once when approved.
 * `status` moves pending -> approved -> executed | failed, or pending -> denied |
 * expired, each step one conditional update, so a double click or two instances run
 * it once. `result` is the call's answer (or its error) as JSON.
 */
export function agentApprovals(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('agent_approvals'))
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (col) => col.notNull())
        .addColumn('action_key', 'text', (col) => col.notNull())
        .addColumn('arguments', 'text', (col) => col.notNull())
        .addColumn('summary', 'text', (col) => col.notNull())
        .addColumn('amount', 'integer')
        .addColumn('currency', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('result', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('decided_at', c.timestamp)
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The owner's list by status; the agent's own reads; the expiry sweep.
      await db.schema
        .createIndex('agent_approvals_user_idx')
        .on('agent_approvals')
        .columns(['user_id', 'status', 'id'])
        .execute();
      await db.schema
        .createIndex('agent_approvals_agent_idx')
        .on('agent_approvals')
        .columns(['agent_id', 'id'])
        .execute();
      await db.schema
        .createIndex('agent_approvals_expiry_idx')
        .on('agent_approvals')
        .columns(['status', 'expires_at'])
        .execute();
    },
  };
}
