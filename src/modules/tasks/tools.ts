import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import {
  addChecklistItemBody,
  addDependencyBody,
  checklistItem,
  createLabelBody,
  createTaskBody,
  listTasksQuery,
  task,
  taskLabel,
  updateChecklistItemBody,
  updateLabelBody,
  updateTaskBody,
} from './schemas.js';
import type { TaskService } from './service.js';

const taskRef = { taskId: entityId };
const labelRef = { labelId: entityId };
const checklistItemRef = { ...taskRef, itemId: entityId };
const deleted = z.object({ deleted: z.literal(true) });

/** MCP tools of tasks, labels, checklists and dependencies: the owner's own, never narrowed by a scope. */
export const taskTools = [
  defineTool({
    actionKey: 'tasks.list',
    title: 'List tasks',
    description:
      'Your tasks by due date (undated last), filtered by status, label, due range [dueFrom, dueTo) or text, one page at a time: pass nextCursor as cursor for the next page.',
    catalogue: {
      description: 'Tasks by due date, filtered by status, label, due range or text, one page at a time.',
      risk: 'read',
      scopeKinds: [],
    },
    input: listTasksQuery,
    output: page(task),
    run: (tasks: TaskService, actor, query) => tasks.list(actor, query),
  }),
  defineTool({
    actionKey: 'tasks.get',
    title: 'Read task',
    description: 'One task of yours with its labels, checklist and the tasks blocking it.',
    catalogue: {
      description: 'One task with labels, checklist and blockers.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(taskRef),
    output: task,
    run: (tasks: TaskService, actor, { taskId }) => tasks.get(actor, taskId),
  }),
  defineTool({
    actionKey: 'tasks.create',
    title: 'Create task',
    description:
      'A new task, optionally with labels (ids of your own labels) and checklist item texts. dueAt is an ISO 8601 date-time with Z or an offset.',
    catalogue: {
      description: 'A new task, optionally with labels and checklist.',
      risk: 'write',
      scopeKinds: [],
    },
    input: createTaskBody,
    output: task,
    run: (tasks: TaskService, actor, input) => tasks.create(actor, input),
  }),
  defineTool({
    actionKey: 'tasks.update',
    title: 'Update task',
    description:
      'Changes the given fields of a task; labelIds replaces its labels. Setting status done fails with TASK_BLOCKED while a blocker is neither done nor cancelled.',
    catalogue: {
      description: 'Changes a task: title, notes, status, priority, due date, labels.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...taskRef, ...updateTaskBody.shape }),
    output: task,
    run: (tasks: TaskService, actor, { taskId, ...changes }) => tasks.update(actor, taskId, changes),
  }),
  defineTool({
    actionKey: 'tasks.delete',
    title: 'Delete task',
    description: 'Deletes a task with its checklist and dependencies.',
    catalogue: {
      description: 'Deletes a task with its checklist and dependencies.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(taskRef),
    output: deleted,
    run: async (tasks: TaskService, actor, { taskId }) => {
      await tasks.delete(actor, taskId);
      return { deleted: true as const };
    },
  }),

  defineTool({
    actionKey: 'tasks.labels.list',
    title: 'List task labels',
    description: 'Your task labels, by name.',
    catalogue: {
      description: "The owner's task labels.",
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject({}),
    output: z.object({ labels: z.array(taskLabel) }),
    run: async (tasks: TaskService, actor) => ({ labels: await tasks.listLabels(actor) }),
  }),
  defineTool({
    actionKey: 'tasks.labels.create',
    title: 'Create task label',
    description: 'A new task label. Label names are unique per user (CONFLICT otherwise).',
    catalogue: {
      description: 'A new task label.',
      risk: 'write',
      scopeKinds: [],
    },
    input: createLabelBody,
    output: taskLabel,
    run: (tasks: TaskService, actor, input) => tasks.createLabel(actor, input),
  }),
  defineTool({
    actionKey: 'tasks.labels.update',
    title: 'Update task label',
    description: 'Renames or recolours a task label of yours (names stay unique).',
    catalogue: {
      description: 'Renames or recolours a task label.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...labelRef, ...updateLabelBody.shape }),
    output: taskLabel,
    run: (tasks: TaskService, actor, { labelId, ...changes }) => tasks.updateLabel(actor, labelId, changes),
  }),
  defineTool({
    actionKey: 'tasks.labels.delete',
    title: 'Delete task label',
    description: 'Deletes a task label of yours and takes it off every task.',
    catalogue: {
      description: 'Deletes a label and takes it off every task.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(labelRef),
    output: deleted,
    run: async (tasks: TaskService, actor, { labelId }) => {
      await tasks.deleteLabel(actor, labelId);
      return { deleted: true as const };
    },
  }),

  defineTool({
    actionKey: 'tasks.checklist.add',
    title: 'Add checklist item',
    description:
      "Adds an item (not done) at the end of a task's checklist; a checklist holds at most 200 items.",
    catalogue: {
      description: "Adds an item at the end of a task's checklist.",
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...taskRef, ...addChecklistItemBody.shape }),
    output: checklistItem,
    run: (tasks: TaskService, actor, { taskId, ...input }) => tasks.addChecklistItem(actor, taskId, input),
  }),
  defineTool({
    actionKey: 'tasks.checklist.update',
    title: 'Update checklist item',
    description:
      "Changes the text or done state of a checklist item, and/or moves it to a 0-based position (past the end means last); itemId is the item's id within the task.",
    catalogue: {
      description: 'Changes the text, done state or position of a checklist item.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...checklistItemRef, ...updateChecklistItemBody.shape }),
    output: checklistItem,
    run: (tasks: TaskService, actor, { taskId, itemId, ...changes }) =>
      tasks.updateChecklistItem(actor, taskId, itemId, changes),
  }),
  defineTool({
    actionKey: 'tasks.checklist.delete',
    title: 'Delete checklist item',
    description: "Removes an item from a task's checklist; later items move up one place.",
    catalogue: {
      description: "Removes an item from a task's checklist.",
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(checklistItemRef),
    output: deleted,
    run: async (tasks: TaskService, actor, { taskId, itemId }) => {
      await tasks.deleteChecklistItem(actor, taskId, itemId);
      return { deleted: true as const };
    },
  }),

  defineTool({
    actionKey: 'tasks.dependencies.add',
    title: 'Add task dependency',
    description:
      'Makes a task wait for another task of yours (blockedByTaskId) and answers the task. Refused with DEPENDENCY_CYCLE when it would close a cycle; adding an existing one changes nothing.',
    catalogue: {
      description: 'Makes a task wait for another (refused when it would close a cycle).',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...taskRef, ...addDependencyBody.shape }),
    output: task,
    run: (tasks: TaskService, actor, { taskId, blockedByTaskId }) =>
      tasks.addDependency(actor, taskId, blockedByTaskId),
  }),
  defineTool({
    actionKey: 'tasks.dependencies.remove',
    title: 'Remove task dependency',
    description: 'Stops a task waiting for blockedByTaskId (NOT_FOUND when it does not wait for it).',
    catalogue: {
      description: 'Removes a dependency between two tasks.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject({ ...taskRef, blockedByTaskId: entityId }),
    output: deleted,
    run: async (tasks: TaskService, actor, { taskId, blockedByTaskId }) => {
      await tasks.removeDependency(actor, taskId, blockedByTaskId);
      return { deleted: true as const };
    },
  }),
];
