import type { Executor } from '../../db/database.js';
import type { ChecklistItem } from './schemas.js';

const checklistColumns = ['id', 'taskId', 'text', 'done', 'position'] as const;
const toItem = (row: { id: number; text: string; done: boolean | number; position: number }) => ({
  id: row.id,
  text: row.text,
  done: Boolean(row.done),
  position: row.position,
});

/** Tasks' checklist items, kept at contiguous positions. */
export function createChecklistRepo(db: Executor) {
  return {
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
  };
}
