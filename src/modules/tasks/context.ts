import type { Db, Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { notFound } from '../../lib/errors.js';
import type { AuthService } from '../auth/service.js';
import { createTaskRepo, type TaskRepo, type TaskRow } from './repo.js';
import { invalid } from './rules.js';
import { TASK_MAX_LABELS, type Task } from './schemas.js';

/** Runs after a write that made a task `done` has committed; never fails that write. */
export type TaskCompletedHook = (actor: Actor, task: Task) => Promise<void>;

export interface TaskServiceDeps {
  db: Db;
  /** Serialises one owner's dependency writes and completions (the auth module owns users). */
  users: Pick<AuthService, 'lockUser'>;
  onTaskCompleted?: TaskCompletedHook;
}

/** What every tasks use case is built from: the dependencies, the repo, and the checks they share. */
export interface TaskContext extends TaskServiceDeps {
  repoFor(executor: Executor): TaskRepo;
  /** The repo outside any transaction. */
  repo: TaskRepo;
  /** The actor's task (locked for update when `lock`); 404 when it is not theirs. */
  requireOwned(r: TaskRepo, actor: Actor, taskId: number, lock?: boolean): Promise<TaskRow>;
  /** The distinct label ids when every one is the owner's; 404 naming none otherwise. */
  checkLabels(r: TaskRepo, ownerId: number, labelIds: readonly number[]): Promise<number[]>;
  /** Tells the completion hook; whatever it does, the completed write stands. */
  completed(actor: Actor, task: Task): Promise<void>;
}

export function createTaskContext(deps: TaskServiceDeps): TaskContext {
  const repoFor = (executor: Executor) => createTaskRepo(executor, deps.db.dialect);
  return {
    ...deps,
    repoFor,
    repo: repoFor(deps.db.kysely),
    async requireOwned(r, actor, taskId, lock = false) {
      const row = await r.findOwned(actor.userId, taskId, lock);
      if (!row) throw notFound('Task');
      return row;
    },
    async checkLabels(r, ownerId, labelIds) {
      const wanted = [...new Set(labelIds)];
      if (wanted.length > TASK_MAX_LABELS) throw invalid('labelIds', `at most ${TASK_MAX_LABELS} labels`);
      if (wanted.length === 0) return [];
      if ((await r.ownedLabelIds(ownerId, wanted)).length !== wanted.length) throw notFound('Label');
      return wanted;
    },
    async completed(actor, task) {
      if (!deps.onTaskCompleted) return;
      try {
        await deps.onTaskCompleted(actor, task);
      } catch {
        // The hook records its own failures (automation audit); nothing reaches the writer.
      }
    },
  };
}
