import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * MCP tasks (DECISIONS.md "MCP frontier"): the handle a task-augmented tool call that
 * needs approval answers, bound to its agent and the approval it follows. Its status and
 * result are the approval's (read through it); the row keeps what is the task's own: its
 * random id, its expiry, and whether the agent cancelled it. In the database, so any
 * instance answers tasks/get, tasks/result and tasks/cancel.
 */
export function approvalTasks(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('agent_approval_tasks')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('approval_id', 'integer', (col) =>
          col.notNull().references('agent_approvals.id').onDelete('cascade'),
        )
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('cancelled_at', c.timestamp)
        .execute();
      // The sweep of expired tasks; erasure finds them by their approval.
      await db.schema
        .createIndex('agent_approval_tasks_expiry_idx')
        .on('agent_approval_tasks')
        .column('expires_at')
        .execute();
      await db.schema
        .createIndex('agent_approval_tasks_approval_idx')
        .on('agent_approval_tasks')
        .column('approval_id')
        .execute();
    },
  };
}
