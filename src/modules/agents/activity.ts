import { InvalidCursorError } from '../../db/keyset.js';
import type { Actor } from '../../lib/actor.js';
import { invalidCursor } from '../../lib/errors.js';
import { type AgentContext, requireOwned, requirePerson } from './context.js';
import { DAY_MS } from './daily-limits.js';
import type { ActivityItem, ActivityQuery } from './schemas.js';

/** The job that deletes activity past AGENT_ACTIVITY_RETENTION_DAYS. */
export const AGENT_ACTIVITY_RETENTION_JOB = 'agent_activity_retention';
export const RETENTION_EVERY_MINUTES = 60;

/** The owner's view of an agent's tool calls, and the retention job's run. */
export function createAgentActivity(context: AgentContext) {
  return {
    async purgeActivity(retentionDays: number): Promise<void> {
      await context.repo.purgeActivity(new Date(Date.now() - retentionDays * 86_400_000).toISOString());
      // Uses older than the window count for nothing any more.
      await context.repo.purgeUsage(new Date(Date.now() - 2 * DAY_MS).toISOString());
    },

    async activity(
      actor: Actor,
      agentId: number,
      query: ActivityQuery,
    ): Promise<{ items: ActivityItem[]; nextCursor: string | null }> {
      requirePerson(actor);
      await requireOwned(context, actor, agentId);
      try {
        return await context.repo.listActivity(agentId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },
  };
}
