import { z } from 'zod';
import { entityId, pageQuery, positiveId } from '../../http/schemas.js';
import { reminderMethod } from '../events/schemas.js';
import { checklistText, labelIds, taskNotes, taskPriority } from '../tasks/schemas.js';

export const RULE_MAX_ACTIONS = 10;
/** A due offset may reach a year either way. */
export const DUE_OFFSET_MAX_MINUTES = 525_600;
export const TAG_MAX_LENGTH = 50;

export const automationTrigger = z
  .enum(['event.created', 'event.synced', 'task.completed', 'manual'])
  .describe(
    'event.created: you create an event; event.synced: calendar sync imports or updates an event (when the mapping asks); ' +
      'task.completed: a task of yours becomes done; manual: only POST /trigger',
  );
export type AutomationTrigger = z.infer<typeof automationTrigger>;

export const ruleConditions = z
  .strictObject({
    titleContains: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("The triggering event's or task's title contains this (any case)"),
    calendarId: entityId.optional().describe('The triggering event is in this calendar'),
  })
  .describe('All given conditions must hold; none given matches everything');
export type RuleConditions = z.infer<typeof ruleConditions>;

export const taskTemplate = z.strictObject({
  title: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe('{{title}} is replaced by the title of the triggering event or task'),
  notes: taskNotes.optional().describe('{{title}} is replaced as in title'),
  priority: taskPriority.optional(),
  status: z
    .enum(['todo', 'in_progress', 'done'])
    .optional()
    .describe('Default todo; done records a completed task'),
  dueOffsetMinutes: z
    .number()
    .int()
    .min(-DUE_OFFSET_MAX_MINUTES)
    .max(DUE_OFFSET_MAX_MINUTES)
    .optional()
    .describe(
      "Due this many minutes after the triggering event's start (otherwise after the run); default no due date",
    ),
  labelIds: labelIds.optional(),
  checklist: z.array(checklistText).max(50).optional(),
});
export type TaskTemplate = z.infer<typeof taskTemplate>;

export const createTaskAction = z.strictObject({
  type: z.literal('create_task'),
  task: taskTemplate,
});
export const addReminderAction = z.strictObject({
  type: z.literal('add_reminder'),
  minutes: z.number().int().min(0).max(1440).describe('Minutes before the start of the triggering event'),
  method: reminderMethod.optional().describe('Default popup'),
});
export const tagEventAction = z.strictObject({
  type: z.literal('tag_event'),
  label: z.string().trim().min(1).max(TAG_MAX_LENGTH).describe('A tag put on the triggering event'),
});
export const ruleAction = z.discriminatedUnion('type', [createTaskAction, addReminderAction, tagEventAction]);
export type RuleAction = z.infer<typeof ruleAction>;

const name = z.string().trim().min(1).max(200);
const actions = z
  .array(ruleAction)
  .min(1)
  .max(RULE_MAX_ACTIONS)
  .describe('Run in order; the first failure stops the rest');

export const createRuleBody = z.strictObject({
  name,
  enabled: z.boolean().optional().describe('Default true'),
  trigger: automationTrigger,
  conditions: ruleConditions.nullable().optional(),
  actions,
});
export type CreateRuleInput = z.infer<typeof createRuleBody>;

export const updateRuleBody = z.strictObject({
  name: name.optional(),
  enabled: z.boolean().optional(),
  trigger: automationTrigger.optional(),
  conditions: ruleConditions.nullable().optional().describe('Replaces them; null for none'),
  actions: actions.optional().describe('Replaces them'),
});
export type UpdateRuleInput = z.infer<typeof updateRuleBody>;

export const rule = z.object({
  id: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  trigger: automationTrigger,
  conditions: z.object({ titleContains: z.string().optional(), calendarId: z.number().int().optional() }),
  actions: z.array(ruleAction),
  createdByAgentId: z
    .number()
    .int()
    .nullable()
    .describe(
      'The agent that last wrote the rule: it runs as that agent (its actions and scope at run time), and not at all while the agent is not active; null: yours',
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Rule = z.infer<typeof rule>;

export const triggerRuleBody = z
  .strictObject({
    eventId: positiveId.optional().describe('Run on this event (of a calendar you can read)'),
    taskId: positiveId.optional().describe('Run on this task of yours'),
  })
  .refine((body) => body.eventId === undefined || body.taskId === undefined, {
    message: 'give eventId or taskId, not both',
    path: ['taskId'],
  });
export type TriggerRuleInput = z.infer<typeof triggerRuleBody>;

export const actionOutcome = z.enum(['succeeded', 'failed', 'not_run']);
export const actionResult = z.object({
  type: z.enum(['create_task', 'add_reminder', 'tag_event']),
  outcome: actionOutcome,
  error: z.string().optional(),
  taskId: z.number().int().optional().describe('The task create_task made'),
});
export type ActionResult = z.infer<typeof actionResult>;

export const auditOutcome = z
  .enum(['succeeded', 'failed', 'skipped'])
  .describe('skipped: the conditions did not match (recorded for manual runs only)');
export type AuditOutcome = z.infer<typeof auditOutcome>;

export const auditEntry = z.object({
  id: z.number().int(),
  ruleId: z.number().int().nullable().describe('null once the rule is deleted'),
  ruleName: z.string(),
  trigger: automationTrigger,
  subjectType: z.enum(['event', 'task']).nullable(),
  subjectId: z.number().int().nullable(),
  outcome: auditOutcome,
  error: z.string().nullable(),
  actions: z.array(actionResult),
  createdAt: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntry>;

export const listAuditQuery = z.strictObject({
  ruleId: positiveId.optional(),
  outcome: auditOutcome.optional(),
  ...pageQuery,
});
export type ListAuditQuery = z.infer<typeof listAuditQuery>;

export const eventTag = z.object({
  label: z.string(),
  ruleId: z.number().int().nullable().describe('The rule that put the tag (null once deleted)'),
  createdAt: z.string(),
});
export type EventTag = z.infer<typeof eventTag>;
