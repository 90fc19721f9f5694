import {
  committedWithOthers,
  compiledOnce,
  compiledPerCount,
  type Dialect,
  type Executor,
} from '../../db/database.js';
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

/** Most rows one grouped activity insert carries: one prepared statement a count up to it. */
const ACTIVITY_GROUP_MAX = 16;

/** One activity row's parameters, in the order of the insert's columns. */
type ActivityParameters = unknown[];

/**
 * PostgreSQL's activity inserts as a group commit: a row arriving while an insert is on its
 * way waits for it, and the rows gathered meanwhile go in one multi-row statement. Each
 * caller still answers only once its own row is committed; under concurrent calls a round
 * trip (and its socket write, the largest CPU cost of a statement) is shared. A group that
 * fails is inserted a row at a time, so one bad row fails only its own call.
 */
function groupedInserts(
  insertOne: (parameters: ActivityParameters) => Promise<unknown>,
  insertMany: (count: number, parameters: ActivityParameters) => Promise<unknown>,
) {
  let waiting: Array<{ parameters: ActivityParameters; done: (error?: unknown) => void }> = [];
  let draining = false;
  const drain = async () => {
    draining = true;
    while (waiting.length > 0) {
      const group = waiting.slice(0, ACTIVITY_GROUP_MAX);
      waiting = waiting.slice(group.length);
      try {
        if (group.length === 1) await insertOne(group[0]!.parameters);
        else
          await insertMany(
            group.length,
            group.flatMap((row) => row.parameters),
          );
        for (const row of group) row.done();
      } catch (error) {
        if (group.length === 1) group[0]!.done(error);
        else
          await Promise.all(group.map((row) => insertOne(row.parameters).then(() => row.done(), row.done)));
      }
    }
    draining = false;
  };
  return (parameters: ActivityParameters) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ parameters, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!draining) void drain();
    });
}

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
  const grouped =
    dialect === 'postgres' && !db.isTransaction
      ? groupedInserts(
          (parameters) => insertActivity(db, ...parameters),
          (count, parameters) => insertActivities(db, count, parameters),
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
      if (grouped) return grouped(parameters);
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
