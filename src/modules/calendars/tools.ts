import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { calendar, createCalendarBody, updateCalendarBody } from './schemas.js';
import type { CalendarService } from './service.js';

const calendarRef = { calendarId: entityId };
const deleted = z.object({ deleted: z.literal(true) });

/** MCP tools of calendars: each the agent's owner's call of the calendar service, within the agent's scope. */
export const calendarTools = [
  defineTool({
    actionKey: 'calendar.list',
    title: 'List calendars',
    description:
      'Your own calendars (the default first), then calendars shared with you through people groups.',
    catalogue: {
      description: 'Own calendars and calendars shared through people groups.',
      risk: 'read',
      scopeKinds: ['calendar', 'userGroup'],
    },
    input: z.strictObject({}),
    output: z.object({ calendars: z.array(calendar) }),
    run: async (calendars: CalendarService, actor) => ({ calendars: await calendars.list(actor) }),
  }),
  defineTool({
    actionKey: 'calendar.get',
    title: 'Read calendar',
    description: 'One calendar you can read.',
    catalogue: {
      description: 'One calendar the owner can read.',
      risk: 'read',
      scopeKinds: ['calendar', 'userGroup'],
    },
    input: z.strictObject(calendarRef),
    output: calendar,
    run: (calendars: CalendarService, actor, { calendarId }) => calendars.get(actor, calendarId),
  }),
  defineTool({
    actionKey: 'calendar.create',
    title: 'Create calendar',
    description: 'A new calendar of yours.',
    catalogue: {
      description: 'A new calendar of the owner (not available to calendar-scoped agents).',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: createCalendarBody,
    output: calendar,
    run: (calendars: CalendarService, actor, input) => calendars.create(actor, input),
  }),
  defineTool({
    actionKey: 'calendar.update',
    title: 'Update calendar',
    description: 'Rename, recolour, describe or change the time zone of a calendar you own.',
    catalogue: {
      description: 'Rename, recolour or change the time zone of an own calendar.',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject({ ...calendarRef, ...updateCalendarBody.shape }),
    output: calendar,
    run: (calendars: CalendarService, actor, { calendarId, ...changes }) =>
      calendars.update(actor, calendarId, changes),
  }),
  defineTool({
    actionKey: 'calendar.delete',
    title: 'Delete calendar',
    description: 'Deletes a calendar you own with all of its events. The default calendar cannot be deleted.',
    catalogue: {
      description: 'Deletes an own calendar with all of its events.',
      risk: 'destructive',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject(calendarRef),
    output: deleted,
    run: async (calendars: CalendarService, actor, { calendarId }) => {
      await calendars.delete(actor, calendarId);
      return { deleted: true as const };
    },
  }),
];
