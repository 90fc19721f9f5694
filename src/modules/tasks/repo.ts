import type { Dialect, Executor } from '../../db/database.js';
import { createChecklistRepo } from './checklist-repo.js';
import { createDependenciesRepo } from './dependencies-repo.js';
import { createLabelsRepo } from './labels-repo.js';
import { createTasksRepo } from './tasks-repo.js';

export type { DependencyRow } from './dependencies-repo.js';
export type { TaskRow, TaskValues } from './tasks-repo.js';

/** The tasks module's queries of its own tables, through `db` (a transaction or the database). */
export function createTaskRepo(db: Executor, dialect: Dialect) {
  return {
    ...createTasksRepo(db, dialect),
    ...createLabelsRepo(db),
    ...createDependenciesRepo(db),
    ...createChecklistRepo(db),
  };
}

export type TaskRepo = ReturnType<typeof createTaskRepo>;
