import { type Selectable, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { containsIgnoringCase, pageByNullableKey } from '../../db/keyset.js';
import type { ListTasksQuery, TaskPriority, TaskStatus } from './schemas.js';
import type { TasksTable } from './tables.js';

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

/** The tasks themselves: written, found by owner, listed a page at a time. */
export function createTasksRepo(db: Executor, dialect: Dialect) {
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
      return pageByNullableKey(q, 'dueAt', query.cursor, query.limit);
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
  };
}
