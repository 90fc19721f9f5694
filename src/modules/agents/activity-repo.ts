import { committedWithOthers, compiledOnce, type Executor } from '../../db/database.js';
import { idBefore, newestFirstPage } from '../../db/keyset.js';
import type { ActivityItem, ActivityQuery } from './schemas.js';

const activityColumns = [
  'id',
  'actionKey',
  'outcome',
  'errorCode',
  'durationMs',
  'arguments',
  'targetIds',
  'approvalId',
  'createdAt',
] as const;

/** Rows one statement of the retention purge deletes; it repeats until a batch comes back short. */
const PURGE_BATCH = 5_000;

/** The record of agents' tool calls (`agent_activity`). */
export function createAgentActivityRepo(db: Executor) {
  // The record of every tool call (parameters in the order of these columns).
  const insertActivity = compiledOnce(() =>
    db.insertInto('agentActivity').values({
      agentId: 0,
      actionKey: '',
      outcome: 'ok',
      errorCode: null,
      durationMs: 0,
      arguments: null,
      targetIds: null,
      approvalId: null,
      createdAt: '',
    }),
  );

  return {
    async insertActivity(values: {
      agentId: number;
      actionKey: string;
      outcome: 'ok' | 'error';
      errorCode: string | null;
      durationMs: number;
      arguments: string | null;
      targetIds: string | null;
      approvalId: number | null;
      now: string;
    }): Promise<void> {
      const call = values;
      await committedWithOthers(db, (executor) =>
        insertActivity(
          executor,
          call.agentId,
          call.actionKey,
          call.outcome,
          call.errorCode,
          call.durationMs,
          call.arguments,
          call.targetIds,
          call.approvalId,
          call.now,
        ),
      );
    },

    /** Deletes activity older than `before`, a batch at a time; answers how many. */
    async purgeActivity(before: string): Promise<number> {
      let total = 0;
      for (;;) {
        const result = await db
          .deleteFrom('agentActivity')
          .where(
            'id',
            'in',
            db.selectFrom('agentActivity').select('id').where('createdAt', '<', before).limit(PURGE_BATCH),
          )
          .executeTakeFirst();
        const deleted = Number(result.numDeletedRows);
        total += deleted;
        if (deleted < PURGE_BATCH) return total;
      }
    },

    /** Newest first, by id. Throws InvalidCursorError for a foreign cursor. */
    async listActivity(
      agentId: number,
      query: ActivityQuery,
    ): Promise<{ items: ActivityItem[]; nextCursor: string | null }> {
      let q = db.selectFrom('agentActivity').select(activityColumns).where('agentId', '=', agentId);
      if (query.actionKey !== undefined) q = q.where('actionKey', '=', query.actionKey);
      if (query.outcome !== undefined) q = q.where('outcome', '=', query.outcome);
      if (query.from !== undefined) q = q.where('createdAt', '>=', query.from);
      if (query.to !== undefined) q = q.where('createdAt', '<', query.to);
      if (query.cursor !== undefined) q = q.where('id', '<', idBefore(query.cursor));
      const rows = await q
        .orderBy('id', 'desc')
        .limit(query.limit + 1)
        .execute();
      const { page, nextCursor } = newestFirstPage(rows, query.limit);
      const items = page.map((row) => ({
        ...row,
        arguments: row.arguments === null ? null : (JSON.parse(row.arguments) as Record<string, unknown>),
        targetIds: row.targetIds === null ? [] : (JSON.parse(row.targetIds) as number[]),
      }));
      return { items, nextCursor };
    },
  };
}

export type AgentActivityRepo = ReturnType<typeof createAgentActivityRepo>;
