import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { TaskLabel } from './schemas.js';
import type { TaskLabelsTable } from './tables.js';

function toLabel(row: Selectable<TaskLabelsTable>): TaskLabel {
  return { id: row.id, name: row.name, color: row.color, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

/** A person's labels and which tasks carry them. */
export function createLabelsRepo(db: Executor) {
  return {
    labelLinks(taskIds: readonly number[]) {
      return db
        .selectFrom('taskLabelLinks')
        .select(['taskId', 'labelId'])
        .where('taskId', 'in', taskIds)
        .orderBy('labelId')
        .execute();
    },

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
