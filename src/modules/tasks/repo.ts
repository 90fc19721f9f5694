import { type Selectable, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import {
  afterNullableKey,
  containsIgnoringCase,
  decodeNullableKey,
  encodeNullableKey,
  nullsLast,
} from '../../db/keyset.js';
import type { ChecklistItem, ListTasksQuery, TaskLabel, TaskPriority, TaskStatus } from './schemas.js';
import type { TaskLabelsTable, TasksTable } from './tables.js';

export type TaskRow = Selectable<TasksTable>;

export interface TaskValues {
  title: string;
  notes: string | null;
  status: TaskStatus;
  priority: TaskPriority;
  dueAt: string | null;
  completedAt: string | null;
  routineId: number | null;
  occurrenceDate: string | null;
}

export interface DependencyRow {
  taskId: number;
  blockedByTaskId: number;
  blockerStatus: TaskStatus;
}

const OPEN_STATUSES: readonly TaskStatus[] = ['todo', 'in_progress'];

function toLabel(row: Selectable<TaskLabelsTable>): TaskLabel {
  return { id: row.id, name: row.name, color: row.color, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

const checklistColumns = ['id', 'taskId', 'text', 'done', 'position'] as const;
const toItem = (row: { id: number; text: string; done: boolean | number; position: number }) => ({
  id: row.id,
  text: row.text,
  done: Boolean(row.done),
  position: row.position,
});

export function createTaskRepo(db: Executor, dialect: Dialect) {
  const lockRows = dialect === 'postgres';
  return {
    async insert(ownerId: number, values: TaskValues, now: string): Promise<TaskRow> {
      return db
        .insertInto('tasks')
        .values({ ownerId, ...values, createdAt: now, updatedAt: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** The owner's task, row-locked on PostgreSQL when `lock` (checklist reordering). */
    findOwned(ownerId: number, id: number, lock = false): Promise<TaskRow | undefined> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', id)
        .where('ownerId', '=', ownerId)
        .$if(lock && lockRows, (qb) => qb.forUpdate())
        .executeTakeFirst();
    },

    /** Which of `ids` are the owner's tasks. */
    async ownedIds(ownerId: number, ids: readonly number[]): Promise<number[]> {
      const rows = await db
        .selectFrom('tasks')
        .select('id')
        .where('ownerId', '=', ownerId)
        .where('id', 'in', ids)
        .execute();
      return rows.map((row) => row.id);
    },

    /** One page in (dueAt nulls last, id) order. Throws InvalidCursorError for a foreign cursor. */
    async list(
      ownerId: number,
      query: ListTasksQuery,
    ): Promise<{ rows: TaskRow[]; nextCursor: string | null }> {
      let q = db.selectFrom('tasks').selectAll().where('ownerId', '=', ownerId);
      if (query.status !== undefined) q = q.where('status', '=', query.status);
      if (query.labelId !== undefined) {
        const labelId = query.labelId;
        q = q.where((eb) =>
          eb.exists(
            eb
              .selectFrom('taskLabelLinks as l')
              .select(sql.lit(1).as('one'))
              .whereRef('l.taskId', '=', 'tasks.id')
              .where('l.labelId', '=', labelId),
          ),
        );
      }
      if (query.dueFrom !== undefined) q = q.where('dueAt', '>=', new Date(query.dueFrom).toISOString());
      if (query.dueTo !== undefined) q = q.where('dueAt', '<', new Date(query.dueTo).toISOString());
      if (query.q !== undefined) {
        const text = query.q;
        q = q.where((eb) =>
          eb.or([containsIgnoringCase('title', text), containsIgnoringCase('notes', text)]),
        );
      }
      if (query.cursor !== undefined) q = q.where(afterNullableKey('dueAt', decodeNullableKey(query.cursor)));
      const rows = await q
        .orderBy(nullsLast('dueAt'))
        .orderBy('dueAt')
        .orderBy('id')
        .limit(query.limit + 1)
        .execute();
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        rows: page,
        nextCursor: rows.length > query.limit && last ? encodeNullableKey(last.dueAt, last.id) : null,
      };
    },

    async update(id: number, values: Partial<TaskValues>, now: string): Promise<TaskRow> {
      return db
        .updateTable('tasks')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async touch(id: number, now: string): Promise<void> {
      await db.updateTable('tasks').set({ updatedAt: now }).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<void> {
      // Labels links, checklist and dependencies in both directions go with it (cascade).
      await db.deleteFrom('tasks').where('id', '=', id).execute();
    },

    /** Tasks a routine made for one occurrence, in creation order. */
    listForOccurrence(routineId: number, occurrenceDate: string): Promise<TaskRow[]> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('routineId', '=', routineId)
        .where('occurrenceDate', '=', occurrenceDate)
        .orderBy('id')
        .execute();
    },

    // Details of a set of tasks: one query each, whatever the number of tasks.

    labelLinks(taskIds: readonly number[]) {
      return db
        .selectFrom('taskLabelLinks')
        .select(['taskId', 'labelId'])
        .where('taskId', 'in', taskIds)
        .orderBy('labelId')
        .execute();
    },

    async checklists(taskIds: readonly number[]): Promise<(ChecklistItem & { taskId: number })[]> {
      const rows = await db
        .selectFrom('taskChecklistItems')
        .select(checklistColumns)
        .where('taskId', 'in', taskIds)
        .orderBy('taskId')
        .orderBy('position')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ ...toItem(row), taskId: row.taskId }));
    },

    dependencies(taskIds: readonly number[]): Promise<DependencyRow[]> {
      return db
        .selectFrom('taskDependencies as d')
        .innerJoin('tasks as blocker', 'blocker.id', 'd.blockedByTaskId')
        .select(['d.taskId', 'd.blockedByTaskId', 'blocker.status as blockerStatus'])
        .where('d.taskId', 'in', taskIds)
        .orderBy('d.blockedByTaskId')
        .execute();
    },

    // Labels of tasks.

    async setLabels(taskId: number, labelIds: readonly number[]): Promise<void> {
      await db.deleteFrom('taskLabelLinks').where('taskId', '=', taskId).execute();
      if (labelIds.length > 0)
        await db
          .insertInto('taskLabelLinks')
          .values(labelIds.map((labelId) => ({ taskId, labelId })))
          .execute();
    },

    async ownedLabelIds(ownerId: number, labelIds: readonly number[]): Promise<number[]> {
      if (labelIds.length === 0) return [];
      const rows = await db
        .selectFrom('taskLabels')
        .select('id')
        .where('ownerId', '=', ownerId)
        .where('id', 'in', labelIds)
        .execute();
      return rows.map((row) => row.id);
    },

    // Dependencies.

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

    // Checklist items.

    async listItems(taskId: number): Promise<ChecklistItem[]> {
      const rows = await db
        .selectFrom('taskChecklistItems')
        .select(checklistColumns)
        .where('taskId', '=', taskId)
        .orderBy('position')
        .orderBy('id')
        .execute();
      return rows.map(toItem);
    },

    async insertItems(
      taskId: number,
      items: readonly { text: string; position: number }[],
      now: string,
    ): Promise<ChecklistItem[]> {
      if (items.length === 0) return [];
      const rows = await db
        .insertInto('taskChecklistItems')
        .values(items.map((item) => ({ taskId, ...item, done: false, createdAt: now, updatedAt: now })))
        .returning(checklistColumns)
        .execute();
      return rows.map(toItem);
    },

    async updateItem(
      id: number,
      values: { text?: string; done?: boolean; position?: number },
      now: string,
    ): Promise<void> {
      await db
        .updateTable('taskChecklistItems')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    async deleteItem(id: number): Promise<void> {
      await db.deleteFrom('taskChecklistItems').where('id', '=', id).execute();
    },

    /** Closes the gap a removed item left: later items move up one place. */
    async closeGap(taskId: number, position: number, now: string): Promise<void> {
      await db
        .updateTable('taskChecklistItems')
        .set((eb) => ({ position: eb('position', '-', 1), updatedAt: now }))
        .where('taskId', '=', taskId)
        .where('position', '>', position)
        .execute();
    },

    // The labels themselves.

    async listLabels(ownerId: number): Promise<TaskLabel[]> {
      const rows = await db
        .selectFrom('taskLabels')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map(toLabel);
    },

    async findLabel(ownerId: number, id: number): Promise<TaskLabel | undefined> {
      const row = await db
        .selectFrom('taskLabels')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toLabel(row);
    },

    async insertLabel(ownerId: number, values: { name: string; color: string }, now: string) {
      const row = await db
        .insertInto('taskLabels')
        .values({ ownerId, ...values, createdAt: now, updatedAt: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toLabel(row);
    },

    async updateLabel(id: number, values: { name?: string; color?: string }, now: string) {
      const row = await db
        .updateTable('taskLabels')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toLabel(row);
    },

    async deleteLabel(id: number): Promise<void> {
      // Its links to tasks go with it (cascade).
      await db.deleteFrom('taskLabels').where('id', '=', id).execute();
    },
  };
}

export type TaskRepo = ReturnType<typeof createTaskRepo>;
