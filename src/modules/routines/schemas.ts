import { z } from 'zod';
import { timeZone } from '../calendars/schemas.js';
import { checklistText, labelIds, task, taskNotes, taskPriority, taskTitle } from '../tasks/schemas.js';

export const ROUTINE_MAX_TEMPLATES = 50;
export const TEMPLATE_MAX_CHECKLIST = 50;
/** Routine dates stay within these years (keeps every expansion small). */
export const ROUTINE_FIRST_YEAR = 1970;
export const ROUTINE_LAST_YEAR = 2200;

/** A local calendar date, `yyyy-MM-dd`, in the routine's time zone. */
export const localDate = z.iso
  .date()
  .refine(
    (value) => {
      const year = Number(value.slice(0, 4));
      return year >= ROUTINE_FIRST_YEAR && year <= ROUTINE_LAST_YEAR;
    },
    { message: `must be a date in the years ${ROUTINE_FIRST_YEAR}..${ROUTINE_LAST_YEAR}` },
  )
  .describe('A date, yyyy-MM-dd');

export const localTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:mm, 00:00..23:59')
  .describe('Local time HH:mm');

export const taskTemplateInput = z.strictObject({
  title: taskTitle,
  notes: taskNotes.optional(),
  priority: taskPriority.optional().describe('Default normal'),
  dueTime: localTime
    .nullable()
    .optional()
    .describe(
      "The task is due at this local time (the routine's time zone) on the occurrence date; default none",
    ),
  labelIds: labelIds.optional(),
  checklist: z.array(checklistText).max(TEMPLATE_MAX_CHECKLIST).optional(),
});
export type TaskTemplateInput = z.infer<typeof taskTemplateInput>;

export const taskTemplate = z.object({
  title: z.string(),
  notes: z.string().nullable(),
  priority: taskPriority,
  dueTime: z.string().nullable(),
  labelIds: z.array(z.number().int()),
  checklist: z.array(z.string()),
});
export type TaskTemplate = z.infer<typeof taskTemplate>;

const recurrence = z
  .array(z.string().trim().min(1).max(1000))
  .min(1)
  .max(50)
  .describe(
    'RFC 5545 lines, e.g. ["RRULE:FREQ=WEEKLY;BYDAY=MO,TH"] (RRULE, EXDATE, RDATE; DAILY or less often; ' +
      'no BYHOUR/BYMINUTE/BYSECOND: routines recur by date), expanded from startDate in timezone',
  );
const name = z.string().trim().min(1).max(200);
const description = z.string().trim().max(2000).nullable();

export const createRoutineBody = z.strictObject({
  name,
  description: description.optional(),
  timezone: timeZone.optional().describe('IANA time zone of the dates; default UTC'),
  startDate: localDate.describe('The first occurrence (RFC 5545 DTSTART), yyyy-MM-dd'),
  recurrence,
  templates: z.array(taskTemplateInput).min(1).max(ROUTINE_MAX_TEMPLATES),
});
export type CreateRoutineInput = z.infer<typeof createRoutineBody>;

export const updateRoutineBody = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  timezone: timeZone.optional(),
  startDate: localDate.optional(),
  recurrence: recurrence.optional(),
  templates: z
    .array(taskTemplateInput)
    .min(1)
    .max(ROUTINE_MAX_TEMPLATES)
    .optional()
    .describe('Replaces them'),
});
export type UpdateRoutineInput = z.infer<typeof updateRoutineBody>;

export const routine = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  timezone: z.string(),
  startDate: z.string(),
  recurrence: z.array(z.string()),
  templates: z.array(taskTemplate),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Routine = z.infer<typeof routine>;

export const runRoutineBody = z.strictObject({
  occurrenceDate: localDate
    .optional()
    .describe(
      "An occurrence of the routine (400 otherwise); default the latest occurrence on or before today in the routine's time zone",
    ),
});
export type RunRoutineInput = z.infer<typeof runRoutineBody>;

export const routineRun = z.object({
  routineId: z.number().int(),
  occurrenceDate: z.string(),
  timezone: z.string().describe("The routine's IANA time zone: occurrenceDate is a date in it"),
  created: z.boolean().describe('false: this occurrence had been run before; its tasks are answered'),
  tasks: z.array(task),
});
export type RoutineRun = z.infer<typeof routineRun>;
