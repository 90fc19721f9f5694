import type { Bool, Id, Timestamp } from '../../db/column-types.js';

export type TaskStatus = 'todo' | 'in_progress' | 'done' | 'cancelled';

export type TaskPriority = 'low' | 'normal' | 'high';

export interface TasksTable {
  id: Id;
  ownerId: number;
  title: string;
  notes: string | null;
  status: TaskStatus;
  priority: TaskPriority;
  dueAt: Timestamp | null;
  /** When the task last became `done`; null while it is not done. */
  completedAt: Timestamp | null;
  /** The routine that instantiated the task (null once the routine is deleted, or never). */
  routineId: number | null;
  /** The routine occurrence (`yyyy-MM-dd`, the routine's time zone) the task was made for. */
  occurrenceDate: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A user's own task labels; names are unique per user. */
export interface TaskLabelsTable {
  id: Id;
  ownerId: number;
  name: string;
  /** `#rrggbb`. */
  color: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface TaskLabelLinksTable {
  taskId: number;
  labelId: number;
}

export interface TaskChecklistItemsTable {
  id: Id;
  taskId: number;
  text: string;
  done: Bool;
  /** 0-based, contiguous within a task. */
  position: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** `taskId` is blocked by `blockedByTaskId` (both of one owner; the graph has no cycle). */
export interface TaskDependenciesTable {
  taskId: number;
  blockedByTaskId: number;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface TaskTables {
  tasks: TasksTable;
  taskLabels: TaskLabelsTable;
  taskLabelLinks: TaskLabelLinksTable;
  taskChecklistItems: TaskChecklistItemsTable;
  taskDependencies: TaskDependenciesTable;
}
