import { createChecklist, type TaskChecklist } from './checklist.js';
import { createTaskContext, type TaskServiceDeps } from './context.js';
import { createDependencies, type TaskDependencies } from './dependencies.js';
import { createTaskDrafting, type TaskDrafting } from './drafts.js';
import { createTaskLabels, type TaskLabels } from './labels.js';
import { createTasks, type Tasks } from './tasks.js';

export type { TaskCompletedHook, TaskServiceDeps } from './context.js';
export type { TaskDraft } from './drafts.js';
export { checkInstant } from './rules.js';

/**
 * Tasks (`tasks.*`): a user's own to-do items with labels, a checklist and
 * dependencies. Every method takes an actor and sees only the actor's own tasks;
 * anything else answers 404.
 *
 * Agent scope: not applicable. Tasks, labels, checklists and dependencies belong to
 * no calendar and no group, so `calendarIds`/`groupIds` do not narrow them: an agent
 * sees and changes its owner's tasks as the owner does. (Rules an agent writes cannot
 * copy other calendars' events into tasks: see the automation service.)
 */
export interface TaskService extends Tasks, TaskDependencies, TaskChecklist, TaskLabels, TaskDrafting {}

export function createTaskService(deps: TaskServiceDeps): TaskService {
  const ctx = createTaskContext(deps);
  return {
    ...createTasks(ctx),
    ...createDependencies(ctx),
    ...createChecklist(ctx),
    ...createTaskLabels(ctx),
    ...createTaskDrafting(ctx),
  };
}
