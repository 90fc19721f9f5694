import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { createRoutineBody, routine, routineRun, runRoutineBody, updateRoutineBody } from './schemas.js';
import type { RoutineService } from './service.js';

const routineRef = { routineId: entityId };

/** MCP tools of routines: the owner's own recurring task templates, never narrowed by a scope. */
export const routineTools = [
  defineTool({
    actionKey: 'routines.list',
    title: 'List routines',
    description: 'Your routines, by name, with their recurrence and task templates.',
    catalogue: {
      description: 'Recurring routines and their task templates.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject({}),
    output: z.object({ routines: z.array(routine) }),
    run: async (routines: RoutineService, actor) => ({ routines: await routines.list(actor) }),
  }),
  defineTool({
    actionKey: 'routines.get',
    title: 'Read routine',
    description: 'One routine of yours with its recurrence and task templates.',
    catalogue: {
      description: 'One routine with its task templates.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(routineRef),
    output: routine,
    run: (routines: RoutineService, actor, { routineId }) => routines.get(actor, routineId),
  }),
  defineTool({
    actionKey: 'routines.create',
    title: 'Create routine',
    description:
      'A new routine: task templates and an RFC 5545 recurrence of dates (e.g. ["RRULE:FREQ=WEEKLY;BYDAY=MO"], daily or less often, no BYHOUR/BYMINUTE/BYSECOND) from startDate in its time zone.',
    catalogue: {
      description: 'A new routine with a recurrence and task templates.',
      risk: 'write',
      scopeKinds: [],
    },
    input: createRoutineBody,
    output: routine,
    run: (routines: RoutineService, actor, input) => routines.create(actor, input),
  }),
  defineTool({
    actionKey: 'routines.update',
    title: 'Update routine',
    description:
      'Changes the given fields of a routine; templates and recurrence are replaced as a whole. Tasks it already made stay.',
    catalogue: {
      description: 'Changes a routine.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...routineRef, ...updateRoutineBody.shape }),
    output: routine,
    run: (routines: RoutineService, actor, { routineId, ...changes }) =>
      routines.update(actor, routineId, changes),
  }),
  defineTool({
    actionKey: 'routines.run',
    title: 'Run routine',
    description:
      "Creates the tasks of one occurrence of a routine (default: the latest occurrence on or before today in the routine's time zone). Each occurrence runs once: a later run answers the same tasks with created false.",
    catalogue: {
      description: 'Creates the tasks of one occurrence of a routine (once per occurrence).',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...routineRef, ...runRoutineBody.shape }),
    output: routineRun,
    run: (routines: RoutineService, actor, { routineId, ...input }) => routines.run(actor, routineId, input),
  }),
  defineTool({
    actionKey: 'routines.delete',
    title: 'Delete routine',
    description: 'Deletes a routine of yours; the tasks it made stay.',
    catalogue: {
      description: 'Deletes a routine; its tasks stay.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(routineRef),
    output: z.object({ deleted: z.literal(true) }),
    run: async (routines: RoutineService, actor, { routineId }) => {
      await routines.delete(actor, routineId);
      return { deleted: true as const };
    },
  }),
];
