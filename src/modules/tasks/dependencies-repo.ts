import type { Executor } from '../../db/database.js';
import type { TaskStatus } from './schemas.js';

export interface DependencyRow {
  taskId: number;
  blockedByTaskId: number;
  blockerStatus: TaskStatus;
}

const OPEN_STATUSES: readonly TaskStatus[] = ['todo', 'in_progress'];

/** Which tasks wait for which, and whether a new wait would close a cycle. */
export function createDependenciesRepo(db: Executor) {
  return {
    dependencies(taskIds: readonly number[]): Promise<DependencyRow[]> {
      return db
        .selectFrom('taskDependencies as d')
        .innerJoin('tasks as blocker', 'blocker.id', 'd.blockedByTaskId')
        .select(['d.taskId', 'd.blockedByTaskId', 'blocker.status as blockerStatus'])
        .where('d.taskId', 'in', taskIds)
        .orderBy('d.blockedByTaskId')
        .execute();
    },

    async countOpenBlockers(taskId: number): Promise<number> {
      const row = await db
        .selectFrom('taskDependencies as d')
        .innerJoin('tasks as blocker', 'blocker.id', 'd.blockedByTaskId')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('d.taskId', '=', taskId)
        .where('blocker.status', 'in', OPEN_STATUSES)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async hasDependency(taskId: number, blockedByTaskId: number): Promise<boolean> {
      const row = await db
        .selectFrom('taskDependencies')
        .select('taskId')
        .where('taskId', '=', taskId)
        .where('blockedByTaskId', '=', blockedByTaskId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Whether `target` is among the tasks `from` waits for, directly or through others (one recursive query). */
    async waitsFor(from: number, target: number): Promise<boolean> {
      const row = await db
        .withRecursive('reach(id)', (qb) =>
          qb
            .selectFrom('taskDependencies')
            .select('blockedByTaskId as id')
            .where('taskId', '=', from)
            .union((eb) =>
              eb
                .selectFrom('taskDependencies as d')
                .innerJoin('reach', 'reach.id', 'd.taskId')
                .select('d.blockedByTaskId as id'),
            ),
        )
        .selectFrom('reach')
        .select('id')
        .where('id', '=', target)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async insertDependency(taskId: number, blockedByTaskId: number, now: string): Promise<void> {
      await db.insertInto('taskDependencies').values({ taskId, blockedByTaskId, createdAt: now }).execute();
    },

    async deleteDependency(taskId: number, blockedByTaskId: number): Promise<boolean> {
      const result = await db
        .deleteFrom('taskDependencies')
        .where('taskId', '=', taskId)
        .where('blockedByTaskId', '=', blockedByTaskId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
