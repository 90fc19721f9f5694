import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const ownRoutines = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('routines').select('routines.id').where('routines.ownerId', '=', userId);

const held = (db: Executor, subject: DataSubject) => ({
  routines: db.selectFrom('routines').where('routines.ownerId', '=', subject.userId),
  runs: db.selectFrom('routineRuns').where('routineRuns.routineId', 'in', ownRoutines(db, subject)),
});

/** Routines (recurring task templates) and the record of which occurrences ran. */
export const routinesPrivacy: PrivacyDeclaration = {
  module: 'routines',
  tables: {
    routines: personal('routines', 'deleted'),
    routine_runs: personal('routines', 'deleted'),
  },
  categories: [
    {
      id: 'routines',
      label: 'Routines: recurring task templates and the occurrences they ran',
      purpose: 'Creating your recurring tasks once per occurrence',
      retention: 'Until you delete them or your account is erased',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return { routines: await countOf(q.routines), routine_runs: await countOf(q.runs) };
  },
  exports: [
    exportSection({
      name: 'routines',
      table: 'routines',
      key: ['routines.id'],
      rows: (db, s) =>
        held(db, s).routines.select([
          'routines.id',
          'name',
          'description',
          'timezone',
          'startDate',
          'recurrence',
          'templates',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, recurrence: json(row.recurrence), templates: json(row.templates) }),
    }),
    exportSection({
      name: 'routineRuns',
      table: 'routine_runs',
      key: ['routineRuns.id'],
      rows: (db, s) =>
        held(db, s).runs.select(['routineRuns.id', 'routineId', 'occurrenceDate', 'routineRuns.createdAt']),
    }),
  ],
  async erase(trx, subject) {
    const runs = await trx
      .deleteFrom('routineRuns')
      .where('routineId', 'in', ownRoutines(trx, subject))
      .executeTakeFirst();
    const routines = await trx
      .deleteFrom('routines')
      .where('ownerId', '=', subject.userId)
      .executeTakeFirst();
    return { routine_runs: changed(runs), routines: changed(routines) };
  },
};
