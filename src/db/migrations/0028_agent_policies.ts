import type { Kysely, Migration } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Agents acting safely (issue 25, DECISIONS.md "Agents acting safely"):
 *
 * - `agent_policies`: one row per agent that has a policy (none: the default, `never`
 *   and no limits). The row is also what a limit check locks on PostgreSQL, so two
 *   instances cannot both pass the last unit.
 * - `agent_usage`: what each counted call used of a daily limit (one booking, one
 *   cancellation, an amount spent), kept for the window; a failed call's rows are deleted.
 * - `agent_activity` gains the call's redacted arguments (JSON), the ids it touched
 *   (JSON array) and the approval it ran under; `(agent_id, created_at)` serves the
 *   time filters and the retention purge.
 * - `automation_rules.created_by_agent_id`: a rule an agent wrote runs as that agent.
 */
export function agentPolicies(c: Columns): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('agent_policies')
        .addColumn('agent_id', 'integer', (col) =>
          col.primaryKey().references('agents.id').onDelete('cascade'),
        )
        .addColumn('require_approval', 'text', (col) => col.notNull())
        .addColumn('approval_over_amount', 'integer')
        .addColumn('bookings_per_day', 'integer')
        .addColumn('cancellations_per_day', 'integer')
        .addColumn('spend_per_day', 'integer')
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await c
        .withId(db.schema.createTable('agent_usage'))
        .addColumn('agent_id', 'integer', (col) => col.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('amount', 'integer', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('agent_usage_agent_kind_idx')
        .on('agent_usage')
        .columns(['agent_id', 'kind', 'created_at'])
        .execute();
      await db.schema.alterTable('agent_activity').addColumn('arguments', 'text').execute();
      await db.schema.alterTable('agent_activity').addColumn('target_ids', 'text').execute();
      await db.schema.alterTable('agent_activity').addColumn('approval_id', 'integer').execute();
      await db.schema
        .createIndex('agent_activity_agent_created_idx')
        .on('agent_activity')
        .columns(['agent_id', 'created_at'])
        .execute();
      await db.schema.alterTable('automation_rules').addColumn('created_by_agent_id', 'integer').execute();
    },
  };
}
