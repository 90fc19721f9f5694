import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, invalidCursor, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AuthService } from '../auth/service.js';
import { instant } from '../events/schemas.js';
import { createChecklist } from './checklist.js';
import { createTaskRepo, type TaskRepo, type TaskRow, type TaskValues } from './repo.js';
import {
  CHECKLIST_MAX_ITEMS,
  CHECKLIST_TEXT_MAX,
  type CreateLabelInput,
  type CreateTaskInput,
  DEFAULT_LABEL_COLOR,
  type ListTasksQuery,
  TASK_MAX_LABELS,
  TASK_NOTES_MAX,
  TASK_TITLE_MAX,
  type Task,
  type TaskLabel,
  type TaskPriority,
  type TaskStatus,
  type UpdateLabelInput,
  type UpdateTaskInput,
} from './schemas.js';

/** Runs after a write that made a task `done` has committed; never fails that write. */
export type TaskCompletedHook = (actor: Actor, task: Task) => Promise<void>;

/** A task to create, already checked: what create, routines and automation have in common. */
export interface TaskDraft {
  title: string;
  notes: string | null;
  status: TaskStatus;
  priority: TaskPriority;
  dueAt: string | null;
  labelIds: readonly number[];
  checklist: readonly string[];
  routineId?: number;
  occurrenceDate?: string;
}

const invalid = (path: string, message: string) =>
  validationFailed(`Invalid task: ${path}: ${message}`, [{ path, message }]);

// The HTTP schemas check these already; services re-check them for callers that skip
// the schemas (MCP tools, routines, automation templates).
function checkTitle(title: string, path = 'title'): string {
  const trimmed = title.trim();
  if (trimmed.length < 1 || trimmed.length > TASK_TITLE_MAX)
    throw invalid(path, `must be 1..${TASK_TITLE_MAX} characters`);
  return trimmed;
}

function checkNotes(notes: string | null | undefined, path = 'notes'): string | null {
  if (notes === undefined || notes === null) return null;
  if (notes.length > TASK_NOTES_MAX) throw invalid(path, `must be at most ${TASK_NOTES_MAX} characters`);
  return notes;
}

function checkChecklistText(text: string, path: string): string {
  const trimmed = text.trim();
  if (trimmed.length < 1 || trimmed.length > CHECKLIST_TEXT_MAX)
    throw invalid(path, `must be 1..${CHECKLIST_TEXT_MAX} characters`);
  return trimmed;
}

/** An ISO 8601 instant with Z or an offset, answered in UTC; null stays null. */
export function checkInstant(value: string | null | undefined, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (!instant.safeParse(value).success)
    throw invalid(path, 'must be an ISO 8601 date-time with Z or an offset');
  return new Date(value).toISOString();
}

const blocked = () =>
  conflict('TASK_BLOCKED', 'This task is blocked by a task that is neither done nor cancelled');

function labelClash(error: unknown): never {
  if (isUniqueViolation(error)) throw conflict('CONFLICT', 'You already have a label with this name');
  throw error;
}

export type TaskService = ReturnType<typeof createTaskService>;

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
export function createTaskService({
  db,
  users,
  onTaskCompleted,
}: {
  db: Db;
  /** Serialises one owner's dependency writes and completions (the auth module owns users). */
  users: Pick<AuthService, 'lockUser'>;
  onTaskCompleted?: TaskCompletedHook;
}) {
  const repoFor = (executor: Executor) => createTaskRepo(executor, db.dialect);
  const repo = repoFor(db.kysely);

  /** Labels, checklists and dependencies of a set of tasks: three queries whatever the count. */
  async function hydrate(r: TaskRepo, rows: readonly TaskRow[]): Promise<Task[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [links, items, dependencies] = await Promise.all([
      r.labelLinks(ids),
      r.checklists(ids),
      r.dependencies(ids),
    ]);
    const group = <T extends { taskId: number }>(list: readonly T[]) => {
      const byTask = new Map<number, T[]>();
      for (const entry of list) byTask.set(entry.taskId, [...(byTask.get(entry.taskId) ?? []), entry]);
      return byTask;
    };
    const labelsOf = group(links);
    const itemsOf = group(items);
    const blockersOf = group(dependencies);
    return rows.map((row) => {
      const blockers = blockersOf.get(row.id) ?? [];
      return {
        id: row.id,
        title: row.title,
        notes: row.notes,
        status: row.status,
        priority: row.priority,
        dueAt: row.dueAt,
        completedAt: row.completedAt,
        labelIds: (labelsOf.get(row.id) ?? []).map((link) => link.labelId),
        checklist: (itemsOf.get(row.id) ?? []).map(({ taskId: _taskId, ...item }) => item),
        blockedByTaskIds: blockers.map((b) => b.blockedByTaskId),
        isBlocked: blockers.some((b) => b.blockerStatus === 'todo' || b.blockerStatus === 'in_progress'),
        routineId: row.routineId,
        occurrenceDate: row.occurrenceDate,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      };
    });
  }

  async function hydrateOne(r: TaskRepo, row: TaskRow): Promise<Task> {
    const [task] = await hydrate(r, [row]);
    return task!;
  }

  async function requireOwned(r: TaskRepo, actor: Actor, taskId: number, lock = false): Promise<TaskRow> {
    const row = await r.findOwned(actor.userId, taskId, lock);
    if (!row) throw notFound('Task');
    return row;
  }

  /** The distinct label ids when every one is the owner's; 404 naming none otherwise. */
  async function checkLabels(r: TaskRepo, ownerId: number, labelIds: readonly number[]): Promise<number[]> {
    const wanted = [...new Set(labelIds)];
    if (wanted.length > TASK_MAX_LABELS) throw invalid('labelIds', `at most ${TASK_MAX_LABELS} labels`);
    if (wanted.length === 0) return [];
    if ((await r.ownedLabelIds(ownerId, wanted)).length !== wanted.length) throw notFound('Label');
    return wanted;
  }

  /** Tells the completion hook; whatever it does, the completed write stands. */
  async function completed(actor: Actor, task: Task): Promise<void> {
    if (!onTaskCompleted) return;
    try {
      await onTaskCompleted(actor, task);
    } catch {
      // The hook records its own failures (automation audit); nothing reaches the writer.
    }
  }

  /** Inserts checked drafts with their labels and checklists through `r` (the caller's transaction). */
  async function insertDrafts(
    r: TaskRepo,
    ownerId: number,
    drafts: readonly TaskDraft[],
  ): Promise<TaskRow[]> {
    const now = nowIso();
    const rows: TaskRow[] = [];
    for (const draft of drafts) {
      const values: TaskValues = {
        title: draft.title,
        notes: draft.notes,
        status: draft.status,
        priority: draft.priority,
        dueAt: draft.dueAt,
        completedAt: draft.status === 'done' ? now : null,
        routineId: draft.routineId ?? null,
        occurrenceDate: draft.occurrenceDate ?? null,
      };
      const row = await r.insert(ownerId, values, now);
      await r.setLabels(row.id, draft.labelIds);
      await r.insertItems(
        row.id,
        draft.checklist.map((text, position) => ({ text, position })),
        now,
      );
      rows.push(row);
    }
    return rows;
  }

  const checklist = createChecklist({ db, repoFor, requireOwned, checkText: checkChecklistText, invalid });

  return {
    /** The actor's tasks, filtered, in (dueAt, nulls last; id) order, one page at a time; a label not theirs is 404. */
    async list(actor: Actor, query: ListTasksQuery): Promise<{ items: Task[]; nextCursor: string | null }> {
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

    async get(actor: Actor, taskId: number): Promise<Task> {
      return hydrateOne(repo, await requireOwned(repo, actor, taskId));
    },

    /** Creates a task; one created as `done` counts as completed (the completion hook runs). */
    async create(actor: Actor, input: CreateTaskInput): Promise<Task> {
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

    /**
     * Changes the given fields. Becoming `done` is refused with 409 TASK_BLOCKED while a
     * blocker is neither done nor cancelled; checked under the owner's lock, so a
     * dependency added at the same time cannot slip through.
     */
    async update(actor: Actor, taskId: number, patch: UpdateTaskInput): Promise<Task> {
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

    async delete(actor: Actor, taskId: number): Promise<void> {
      await requireOwned(repo, actor, taskId);
      await repo.delete(taskId);
    },

    /**
     * Makes `taskId` wait for `blockedByTaskId` (both the actor's). A dependency that
     * would close a cycle, the task itself included, is 409 DEPENDENCY_CYCLE. The check
     * and the insert share one transaction under the owner's lock, so two concurrent
     * additions cannot close a cycle between them. Adding an existing one changes nothing.
     */
    async addDependency(actor: Actor, taskId: number, blockedByTaskId: number): Promise<Task> {
      return inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await users.lockUser(trx, actor.userId);
        const task = await requireOwned(r, actor, taskId);
        if (blockedByTaskId === taskId) throw conflict('DEPENDENCY_CYCLE', 'A task cannot wait for itself');
        if ((await r.ownedIds(actor.userId, [blockedByTaskId])).length !== 1) throw notFound('Task');
        if (!(await r.hasDependency(taskId, blockedByTaskId))) {
          if (await r.waitsFor(blockedByTaskId, taskId))
            throw conflict(
              'DEPENDENCY_CYCLE',
              `Task ${blockedByTaskId} already waits for task ${taskId}, directly or through others`,
            );
          const now = nowIso();
          await r.insertDependency(taskId, blockedByTaskId, now);
          return hydrateOne(r, await r.update(taskId, {}, now));
        }
        return hydrateOne(r, task);
      });
    },

    async removeDependency(actor: Actor, taskId: number, blockedByTaskId: number): Promise<void> {
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await requireOwned(r, actor, taskId);
        if (!(await r.deleteDependency(taskId, blockedByTaskId))) throw notFound('Dependency');
        await r.touch(taskId, nowIso());
      });
    },

    ...checklist,

    listLabels(actor: Actor): Promise<TaskLabel[]> {
      return repo.listLabels(actor.userId);
    },

    /** Label names are unique per user (409 CONFLICT). */
    createLabel(actor: Actor, input: CreateLabelInput): Promise<TaskLabel> {
      return repo
        .insertLabel(
          actor.userId,
          { name: input.name.trim(), color: input.color ?? DEFAULT_LABEL_COLOR },
          nowIso(),
        )
        .catch(labelClash);
    },

    async updateLabel(actor: Actor, labelId: number, input: UpdateLabelInput): Promise<TaskLabel> {
      if (!(await repo.findLabel(actor.userId, labelId))) throw notFound('Label');
      return repo
        .updateLabel(
          labelId,
          { ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...pick(input, 'color') },
          nowIso(),
        )
        .catch(labelClash);
    },

    /** Deletes the label and takes it off every task. */
    async deleteLabel(actor: Actor, labelId: number): Promise<void> {
      if (!(await repo.findLabel(actor.userId, labelId))) throw notFound('Label');
      await repo.deleteLabel(labelId);
    },

    // For other services (routines), inside their own transactions.

    /** The ids among `labelIds` that are still the owner's labels. */
    ownedLabelIds(executor: Executor, ownerId: number, labelIds: readonly number[]): Promise<number[]> {
      return repoFor(executor).ownedLabelIds(ownerId, [...new Set(labelIds)]);
    },

    /** Every label id is the owner's (404 naming none otherwise); answers them without repeats. */
    requireOwnedLabels(actor: Actor, labelIds: readonly number[]): Promise<number[]> {
      return checkLabels(repo, actor.userId, labelIds);
    },

    /** Inserts checked drafts through the caller's transaction; no completion hook runs. */
    async insertDrafts(executor: Executor, ownerId: number, drafts: readonly TaskDraft[]): Promise<Task[]> {
      const r = repoFor(executor);
      return hydrate(r, await insertDrafts(r, ownerId, drafts));
    },

    /** Tasks a routine made for one occurrence. */
    async listForOccurrence(executor: Executor, routineId: number, occurrenceDate: string): Promise<Task[]> {
      const r = repoFor(executor);
      return hydrate(r, await r.listForOccurrence(routineId, occurrenceDate));
    },
  };
}

function pick<T extends object, K extends keyof T>(input: T, key: K): Partial<Pick<T, K>> {
  return input[key] === undefined ? {} : ({ [key]: input[key] } as Partial<Pick<T, K>>);
}
