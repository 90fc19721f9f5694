import type { Executor } from '../../db/database.js';
import {
  bool,
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const ownTasks = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('tasks').select('tasks.id').where('tasks.ownerId', '=', userId);

const held = (db: Executor, subject: DataSubject) => ({
  tasks: db.selectFrom('tasks').where('tasks.ownerId', '=', subject.userId),
  labels: db.selectFrom('taskLabels').where('taskLabels.ownerId', '=', subject.userId),
  labelLinks: db.selectFrom('taskLabelLinks').where('taskLabelLinks.taskId', 'in', ownTasks(db, subject)),
  checklist: db
    .selectFrom('taskChecklistItems')
    .where('taskChecklistItems.taskId', 'in', ownTasks(db, subject)),
  // Both tasks of a dependency have one owner, so the waiting task decides.
  dependencies: db
    .selectFrom('taskDependencies')
    .where('taskDependencies.taskId', 'in', ownTasks(db, subject)),
});

/** Tasks with their labels, checklists and dependencies. */
export const tasksPrivacy: PrivacyDeclaration = {
  module: 'tasks',
  tables: {
    tasks: personal('tasks', 'deleted'),
    task_labels: personal('tasks', 'deleted'),
    task_label_links: personal('tasks', 'deleted'),
    task_checklist_items: personal('tasks', 'deleted'),
    task_dependencies: personal('tasks', 'deleted'),
  },
  categories: [
    {
      id: 'tasks',
      label: 'Tasks, labels, checklists and dependencies',
      purpose: 'Planning your work and reminding you of what is due',
      retention: 'Until you delete them or your account is erased',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      tasks: await countOf(q.tasks),
      task_labels: await countOf(q.labels),
      task_label_links: await countOf(q.labelLinks),
      task_checklist_items: await countOf(q.checklist),
      task_dependencies: await countOf(q.dependencies),
    };
  },
  exports: [
    exportSection({
      name: 'tasks',
      table: 'tasks',
      key: ['tasks.id'],
      rows: (db, s) =>
        held(db, s).tasks.select([
          'tasks.id',
          'title',
          'notes',
          'status',
          'priority',
          'dueAt',
          'completedAt',
          'routineId',
          'occurrenceDate',
          'createdAt',
          'updatedAt',
        ]),
    }),
    exportSection({
      name: 'taskLabels',
      table: 'task_labels',
      key: ['taskLabels.id'],
      rows: (db, s) =>
        held(db, s).labels.select(['taskLabels.id', 'name', 'color', 'createdAt', 'updatedAt']),
    }),
    exportSection({
      name: 'taskLabelLinks',
      table: 'task_label_links',
      key: ['taskLabelLinks.taskId', 'taskLabelLinks.labelId'],
      rows: (db, s) => held(db, s).labelLinks.select(['taskLabelLinks.taskId', 'taskLabelLinks.labelId']),
    }),
    exportSection({
      name: 'taskChecklistItems',
      table: 'task_checklist_items',
      key: ['taskChecklistItems.id'],
      rows: (db, s) =>
        held(db, s).checklist.select([
          'taskChecklistItems.id',
          'taskId',
          'text',
          'done',
          'position',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, done: bool(row.done) }),
    }),
    exportSection({
      name: 'taskDependencies',
      table: 'task_dependencies',
      key: ['taskDependencies.taskId', 'taskDependencies.blockedByTaskId'],
      rows: (db, s) =>
        held(db, s).dependencies.select([
          'taskDependencies.taskId',
          'taskDependencies.blockedByTaskId',
          'taskDependencies.createdAt',
        ]),
    }),
  ],
  async erase(trx, subject) {
    const tasks = ownTasks(trx, subject);
    const links = await trx.deleteFrom('taskLabelLinks').where('taskId', 'in', tasks).executeTakeFirst();
    const items = await trx.deleteFrom('taskChecklistItems').where('taskId', 'in', tasks).executeTakeFirst();
    const deps = await trx.deleteFrom('taskDependencies').where('taskId', 'in', tasks).executeTakeFirst();
    const deleted = await trx.deleteFrom('tasks').where('ownerId', '=', subject.userId).executeTakeFirst();
    const labels = await trx
      .deleteFrom('taskLabels')
      .where('ownerId', '=', subject.userId)
      .executeTakeFirst();
    return {
      task_label_links: changed(links),
      task_checklist_items: changed(items),
      task_dependencies: changed(deps),
      tasks: changed(deleted),
      task_labels: changed(labels),
    };
  },
};
