import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Routine, TaskTemplate } from './schemas.js';
import type { RoutinesTable } from './tables.js';

export interface RoutineValues {
  name: string;
  description: string | null;
  timezone: string;
  startDate: string;
  recurrence: string[];
  templates: TaskTemplate[];
}

export function toRoutine(row: Selectable<RoutinesTable>): Routine {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    timezone: row.timezone,
    startDate: row.startDate,
    recurrence: JSON.parse(row.recurrence) as string[],
    templates: JSON.parse(row.templates) as TaskTemplate[],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toColumns(values: Partial<RoutineValues>) {
  const { recurrence, templates, ...rest } = values;
  return {
    ...rest,
    ...(recurrence !== undefined ? { recurrence: JSON.stringify(recurrence) } : {}),
    ...(templates !== undefined ? { templates: JSON.stringify(templates) } : {}),
  };
}

export function createRoutineRepo(db: Executor) {
  return {
    async insert(ownerId: number, values: RoutineValues, now: string): Promise<Routine> {
      const row = await db
        .insertInto('routines')
        .values({
          ownerId,
          ...values,
          recurrence: JSON.stringify(values.recurrence),
          templates: JSON.stringify(values.templates),
          createdAt: now,
          updatedAt: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRoutine(row);
    },

    async list(ownerId: number): Promise<Routine[]> {
      const rows = await db
        .selectFrom('routines')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map(toRoutine);
    },

    async findOwned(ownerId: number, id: number): Promise<Routine | undefined> {
      const row = await db
        .selectFrom('routines')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRoutine(row);
    },

    async update(id: number, values: Partial<RoutineValues>, now: string): Promise<Routine> {
      const row = await db
        .updateTable('routines')
        .set({ ...toColumns(values), updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRoutine(row);
    },

    async delete(id: number): Promise<void> {
      // Its runs go with it; its tasks stay, without the routine (set null).
      await db.deleteFrom('routines').where('id', '=', id).execute();
    },

    /**
     * Claims an occurrence: true when this call recorded the run, false when it existed.
     * Concurrent claims of one occurrence wait for each other on the unique key; one wins.
     */
    async claimRun(routineId: number, occurrenceDate: string, now: string): Promise<boolean> {
      const row = await db
        .insertInto('routineRuns')
        .values({ routineId, occurrenceDate, createdAt: now })
        .onConflict((oc) => oc.columns(['routineId', 'occurrenceDate']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
