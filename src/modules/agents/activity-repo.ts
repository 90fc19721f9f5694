import {
  committedWithOthers,
  compiledOnce,
  compiledPerCount,
  type Dialect,
  type Executor,
} from '../../db/database.js';
import { idBefore, newestFirstPage } from '../../db/keyset.js';
import { turnGroups } from '../../db/turn-groups.js';
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

/** Most rows one grouped activity insert carries: one prepared statement a count up to it. */
const ACTIVITY_GROUP_MAX = 16;

/** One activity row's parameters, in the order of the insert's columns. */
type ActivityParameters = unknown[];

/** The record of agents' tool calls (`agent_activity`). */
export function createAgentActivityRepo(db: Executor, dialect: Dialect) {
  const row = () => ({
    agentId: 0,
    actionKey: '',
    outcome: 'ok' as const,
    errorCode: null,
    durationMs: 0,
    arguments: null,
    targetIds: null,
    approvalId: null,
    createdAt: '',
  });
  // The record of every tool call (parameters in the order of these columns).
  const insertActivity = compiledOnce(() => db.insertInto('agentActivity').values(row()));
  const insertActivities = compiledPerCount((count) =>
    db.insertInto('agentActivity').values(Array.from({ length: count }, row)),
  );
  // On PostgreSQL the rows of calls arriving while one is on its way go in one multi-row
  // statement: one round trip and one commit's flush for the group, each caller still answered
  // once its own row is committed.
  const grouped =
    dialect === 'postgres' && !db.isTransaction
      ? turnGroups<null, ActivityParameters, void>(
          async (parameters) => {
            await insertActivity(db, ...parameters);
          },
          async (_all, rows) => {
            await insertActivities(db, rows.length, rows.flat());
            return rows.map(() => undefined);
          },
          ACTIVITY_GROUP_MAX,
        )
      : undefined;

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
      const parameters = [
        call.agentId,
        call.actionKey,
        call.outcome,
        call.errorCode,
        call.durationMs,
        call.arguments,
        call.targetIds,
        call.approvalId,
        call.now,
      ];
      if (grouped) return grouped.write(null, parameters);
      await committedWithOthers(db, (executor) => insertActivity(executor, ...parameters));
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
