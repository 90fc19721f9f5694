import type { TaskRepo, TaskRow } from './repo.js';
import type { Task } from './schemas.js';

/** Tasks as the API answers them: their labels, checklists and dependencies in three queries whatever the count. */
export async function hydrate(r: TaskRepo, rows: readonly TaskRow[]): Promise<Task[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [links, items, dependencies] = await Promise.all([
    r.labelLinks(ids),
    r.checklists(ids),
    r.dependencies(ids),
  ]);
  const labelsOf = byTask(links);
  const itemsOf = byTask(items);
  const blockersOf = byTask(dependencies);
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

export async function hydrateOne(r: TaskRepo, row: TaskRow): Promise<Task> {
  const [task] = await hydrate(r, [row]);
  return task!;
}

function byTask<T extends { taskId: number }>(list: readonly T[]): Map<number, T[]> {
  const grouped = new Map<number, T[]>();
  for (const entry of list) {
    const group = grouped.get(entry.taskId);
    if (group) group.push(entry);
    else grouped.set(entry.taskId, [entry]);
  }
  return grouped;
}
