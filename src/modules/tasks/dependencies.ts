import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { TaskContext } from './context.js';
import { hydrateOne } from './hydrate.js';
import type { Task } from './schemas.js';

/** Tasks waiting for other tasks of the same person, never in a cycle. */
export interface TaskDependencies {
  /**
   * Makes `taskId` wait for `blockedByTaskId` (both the actor's). A dependency that
   * would close a cycle, the task itself included, is 409 DEPENDENCY_CYCLE. The check
   * and the insert share one transaction under the owner's lock, so two concurrent
   * additions cannot close a cycle between them. Adding an existing one changes nothing.
   */
  addDependency(actor: Actor, taskId: number, blockedByTaskId: number): Promise<Task>;
  removeDependency(actor: Actor, taskId: number, blockedByTaskId: number): Promise<void>;
}

export function createDependencies({ db, users, repoFor, requireOwned }: TaskContext): TaskDependencies {
  return {
    addDependency: (actor, taskId, blockedByTaskId) =>
      inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await users.lockUser(trx, actor.userId);
        const task = await requireOwned(r, actor, taskId);
        if (blockedByTaskId === taskId) throw conflict('DEPENDENCY_CYCLE', 'A task cannot wait for itself');
        if ((await r.ownedIds(actor.userId, [blockedByTaskId])).length !== 1) throw notFound('Task');
        if (await r.hasDependency(taskId, blockedByTaskId)) return hydrateOne(r, task);
        if (await r.waitsFor(blockedByTaskId, taskId))
          throw conflict(
            'DEPENDENCY_CYCLE',
            `Task ${blockedByTaskId} already waits for task ${taskId}, directly or through others`,
          );
        const now = nowIso();
        await r.insertDependency(taskId, blockedByTaskId, now);
        return hydrateOne(r, await r.update(taskId, {}, now));
      }),

    async removeDependency(actor, taskId, blockedByTaskId) {
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await requireOwned(r, actor, taskId);
        if (!(await r.deleteDependency(taskId, blockedByTaskId))) throw notFound('Dependency');
        await r.touch(taskId, nowIso());
      });
    },
  };
}
