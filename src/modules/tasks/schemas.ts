import { z } from 'zod';
import { entityId, pageQuery, positiveId } from '../../http/schemas.js';
import { color } from '../calendars/schemas.js';
import { instant } from '../events/schemas.js';

export const TASK_TITLE_MAX = 500;
export const TASK_NOTES_MAX = 10_000;
export const CHECKLIST_TEXT_MAX = 500;
/** Most checklist items one task holds. */
export const CHECKLIST_MAX_ITEMS = 200;
/** Most labels one task carries. */
export const TASK_MAX_LABELS = 20;
export const DEFAULT_LABEL_COLOR = '#6b7280';

export const taskStatus = z.enum(['todo', 'in_progress', 'done', 'cancelled']);
export type TaskStatus = z.infer<typeof taskStatus>;
export const taskPriority = z.enum(['low', 'normal', 'high']);
export type TaskPriority = z.infer<typeof taskPriority>;

export const taskTitle = z.string().trim().min(1).max(TASK_TITLE_MAX);
export const taskNotes = z.string().max(TASK_NOTES_MAX).nullable();
export const checklistText = z.string().trim().min(1).max(CHECKLIST_TEXT_MAX);
export const labelIds = z.array(entityId).max(TASK_MAX_LABELS).describe('Ids of your own task labels');

export const createTaskBody = z.strictObject({
  title: taskTitle,
  notes: taskNotes.optional(),
  status: taskStatus.optional().describe('Default todo; done only when no blocker is open'),
  priority: taskPriority.optional().describe('Default normal'),
  dueAt: instant.nullable().optional(),
  labelIds: labelIds.optional(),
  checklist: z
    .array(checklistText)
    .max(CHECKLIST_MAX_ITEMS)
    .optional()
    .describe('Checklist item texts, in order (not done)'),
});
export type CreateTaskInput = z.infer<typeof createTaskBody>;

export const updateTaskBody = z.strictObject({
  title: taskTitle.optional(),
  notes: taskNotes.optional(),
  status: taskStatus
    .optional()
    .describe('done is refused (409 TASK_BLOCKED) while a blocker is neither done nor cancelled'),
  priority: taskPriority.optional(),
  dueAt: instant.nullable().optional(),
  labelIds: labelIds.optional().describe('Replaces the task labels'),
});
export type UpdateTaskInput = z.infer<typeof updateTaskBody>;

export const checklistItem = z.object({
  id: z.number().int(),
  text: z.string(),
  done: z.boolean(),
  position: z.number().int().describe('0-based place in the checklist'),
});
export type ChecklistItem = z.infer<typeof checklistItem>;

export const task = z.object({
  id: z.number().int(),
  title: z.string(),
  notes: z.string().nullable(),
  status: taskStatus,
  priority: taskPriority,
  dueAt: z.string().nullable(),
  completedAt: z.string().nullable().describe('When the task became done; null while it is not'),
  labelIds: z.array(z.number().int()),
  checklist: z.array(checklistItem).describe('In position order'),
  blockedByTaskIds: z.array(z.number().int()).describe('Tasks this one waits for'),
  isBlocked: z.boolean().describe('Whether a blocker is neither done nor cancelled'),
  routineId: z.number().int().nullable().describe('The routine that created the task'),
  occurrenceDate: z.string().nullable().describe('The routine occurrence (yyyy-MM-dd) it was made for'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Task = z.infer<typeof task>;

export const listTasksQuery = z
  .strictObject({
    status: taskStatus.optional(),
    labelId: positiveId.optional().describe('Tasks carrying this label'),
    dueFrom: instant.optional().describe('Tasks due at or after this'),
    dueTo: instant.optional().describe('Tasks due before this'),
    q: z.string().trim().min(1).max(200).optional().describe('Title or notes contain this (any case)'),
    ...pageQuery,
  })
  .refine((q) => !q.dueFrom || !q.dueTo || Date.parse(q.dueTo) > Date.parse(q.dueFrom), {
    message: 'must be after dueFrom',
    path: ['dueTo'],
  });
export type ListTasksQuery = z.infer<typeof listTasksQuery>;

export const addDependencyBody = z.strictObject({
  blockedByTaskId: entityId.describe('A task of yours this task has to wait for'),
});
export const dependencyParams = z.strictObject({ id: positiveId, blockedByTaskId: positiveId });

export const addChecklistItemBody = z.strictObject({ text: checklistText });
export const updateChecklistItemBody = z.strictObject({
  text: checklistText.optional(),
  done: z.boolean().optional(),
  position: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Move the item to this 0-based place; past the end means last'),
});
export type UpdateChecklistItemInput = z.infer<typeof updateChecklistItemBody>;
export const checklistItemParams = z.strictObject({ id: positiveId, itemId: positiveId });

export const createLabelBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  color: color.optional().describe(`Default ${DEFAULT_LABEL_COLOR}`),
});
export type CreateLabelInput = z.infer<typeof createLabelBody>;
export const updateLabelBody = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  color: color.optional(),
});
export type UpdateLabelInput = z.infer<typeof updateLabelBody>;

export const taskLabel = z.object({
  id: z.number().int(),
  name: z.string(),
  color: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TaskLabel = z.infer<typeof taskLabel>;
