import { inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { Actor } from '../../lib/actor.js';
import { invalidCursor, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { TaskContext } from './context.js';
import { insertDrafts, type TaskDraft } from './drafts.js';
import { hydrate, hydrateOne } from './hydrate.js';
import type { TaskValues } from './repo.js';
import { blocked, checkChecklistText, checkInstant, checkNotes, checkTitle, invalid } from './rules.js';
import {
  CHECKLIST_MAX_ITEMS,
  type CreateTaskInput,
  type ListTasksQuery,
  type Task,
  type UpdateTaskInput,
} from './schemas.js';

/** A person's own tasks: listed, read, created, changed and deleted. */
export interface Tasks {
  /** The actor's tasks, filtered, in (dueAt, nulls last; id) order, one page at a time; a label not theirs is 404. */
  list(actor: Actor, query: ListTasksQuery): Promise<{ items: Task[]; nextCursor: string | null }>;
  get(actor: Actor, taskId: number): Promise<Task>;
  /** Creates a task; one created as `done` counts as completed (the completion hook runs). */
  create(actor: Actor, input: CreateTaskInput): Promise<Task>;
  /**
   * Changes the given fields. Becoming `done` is refused with 409 TASK_BLOCKED while a
   * blocker is neither done nor cancelled; checked under the owner's lock, so a
   * dependency added at the same time cannot slip through.
   */
  update(actor: Actor, taskId: number, patch: UpdateTaskInput): Promise<Task>;
  delete(actor: Actor, taskId: number): Promise<void>;
}

export function createTasks(ctx: TaskContext): Tasks {
  const { db, users, repo, repoFor, requireOwned, checkLabels, completed } = ctx;
  return {
    async list(actor, query) {
      if (query.labelId !== undefined && !(await repo.findLabel(actor.userId, query.labelId)))
        throw notFound('Label');
      try {
        const { rows, nextCursor } = await repo.list(actor.userId, query);
        return { items: await hydrate(repo, rows), nextCursor };
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    get: async (actor, taskId) => hydrateOne(repo, await requireOwned(repo, actor, taskId)),

    async create(actor, input) {
      const checklist = (input.checklist ?? []).map((text, i) => checkChecklistText(text, `checklist.${i}`));
      if (checklist.length > CHECKLIST_MAX_ITEMS)
        throw invalid('checklist', `at most ${CHECKLIST_MAX_ITEMS} items`);
      const draft: TaskDraft = {
        title: checkTitle(input.title),
        notes: checkNotes(input.notes),
        status: input.status ?? 'todo',
        priority: input.priority ?? 'normal',
        dueAt: checkInstant(input.dueAt, 'dueAt'),
        labelIds: [],
        checklist,
      };
      const task = await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        const [row] = await insertDrafts(r, actor.userId, [
          { ...draft, labelIds: await checkLabels(r, actor.userId, input.labelIds ?? []) },
        ]);
        return hydrateOne(r, row!);
      });
      if (task.status === 'done') await completed(actor, task);
      return task;
    },

    async update(actor, taskId, patch) {
      const values: Partial<TaskValues> = {};
      if (patch.title !== undefined) values.title = checkTitle(patch.title);
      if (patch.notes !== undefined) values.notes = checkNotes(patch.notes);
      if (patch.priority !== undefined) values.priority = patch.priority;
      if (patch.dueAt !== undefined) values.dueAt = checkInstant(patch.dueAt, 'dueAt');
      let becameDone = false;
      const task = await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        if (patch.status === 'done') await users.lockUser(trx, actor.userId);
        const current = await requireOwned(r, actor, taskId);
        const now = nowIso();
        if (patch.status !== undefined && patch.status !== current.status) {
          if (patch.status === 'done') {
            if ((await r.countOpenBlockers(taskId)) > 0) throw blocked();
            becameDone = true;
          }
          values.status = patch.status;
          values.completedAt = patch.status === 'done' ? now : null;
        }
        if (patch.labelIds !== undefined)
          await r.setLabels(taskId, await checkLabels(r, actor.userId, patch.labelIds));
        return hydrateOne(r, await r.update(taskId, values, now));
      });
      if (becameDone) await completed(actor, task);
      return task;
    },

    async delete(actor, taskId) {
      await requireOwned(repo, actor, taskId);
      await repo.delete(taskId);
    },
  };
}
