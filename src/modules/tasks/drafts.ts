import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { nowIso } from '../../lib/time.js';
import type { TaskContext } from './context.js';
import { hydrate } from './hydrate.js';
import type { TaskRepo, TaskRow, TaskValues } from './repo.js';
import type { Task, TaskPriority, TaskStatus } from './schemas.js';

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

/** Inserts checked drafts with their labels and checklists through `r` (the caller's transaction). */
export async function insertDrafts(
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

/** What routines (and automation) do with tasks inside their own transactions. */
export interface TaskDrafting {
  /** The ids among `labelIds` that are still the owner's labels. */
  ownedLabelIds(executor: Executor, ownerId: number, labelIds: readonly number[]): Promise<number[]>;
  /** Every label id is the owner's (404 naming none otherwise); answers them without repeats. */
  requireOwnedLabels(actor: Actor, labelIds: readonly number[]): Promise<number[]>;
  /** Inserts checked drafts through the caller's transaction; no completion hook runs. */
  insertDrafts(executor: Executor, ownerId: number, drafts: readonly TaskDraft[]): Promise<Task[]>;
  /** Tasks a routine made for one occurrence. */
  listForOccurrence(executor: Executor, routineId: number, occurrenceDate: string): Promise<Task[]>;
}

export function createTaskDrafting(ctx: TaskContext): TaskDrafting {
  const { repoFor, repo, checkLabels } = ctx;
  return {
    ownedLabelIds: (executor, ownerId, labelIds) =>
      repoFor(executor).ownedLabelIds(ownerId, [...new Set(labelIds)]),
    requireOwnedLabels: (actor, labelIds) => checkLabels(repo, actor.userId, labelIds),
    async insertDrafts(executor, ownerId, drafts) {
      const r = repoFor(executor);
      return hydrate(r, await insertDrafts(r, ownerId, drafts));
    },
    async listForOccurrence(executor, routineId, occurrenceDate) {
      const r = repoFor(executor);
      return hydrate(r, await r.listForOccurrence(routineId, occurrenceDate));
    },
  };
}
