import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { createEventBody, event, eventOccurrence, eventRangeQuery, updateEventBody } from './schemas.js';
import type { EventService } from './service.js';

const eventRef = { eventId: entityId };

/** MCP tools of events: reads and writes through the event service, within the agent's calendar scope. */
export function eventTools(events: EventService) {
  return [
    defineTool({
      actionKey: 'calendar.events.read',
      title: 'Read events',
      description:
        'Event occurrences of a calendar overlapping [from, to) (at most 366 days); recurring events are expanded.',
      input: z.strictObject({ calendarId: entityId, ...eventRangeQuery.shape }),
      output: z.object({ occurrences: z.array(eventOccurrence) }),
      run: async (actor, { calendarId, from, to }) => ({
        occurrences: await events.listOccurrences(actor, calendarId, { from, to }),
      }),
    }),
    defineTool({
      actionKey: 'calendar.events.get',
      title: 'Read event',
      description: 'One event with its recurrence lines and reminders.',
      input: z.strictObject(eventRef),
      output: event,
      run: (actor, { eventId }) => events.get(actor, eventId),
    }),
    defineTool({
      actionKey: 'calendar.events.create',
      title: 'Create event',
      description:
        'A new event in a calendar you own. Recurrence is a list of RFC 5545 lines (RRULE:, EXDATE:, RDATE:).',
      input: z.strictObject({ calendarId: entityId, ...createEventBody.shape }),
      output: event,
      run: (actor, { calendarId, ...input }) => events.create(actor, calendarId, input),
    }),
    defineTool({
      actionKey: 'calendar.events.update',
      title: 'Update event',
      description: 'Changes an event of a calendar you own (the whole series of a recurring event).',
      input: z.strictObject({ ...eventRef, ...updateEventBody.shape }),
      output: event,
      run: (actor, { eventId, ...changes }) => events.update(actor, eventId, changes),
    }),
    defineTool({
      actionKey: 'calendar.events.delete',
      title: 'Delete event',
      description: 'Deletes an event of a calendar you own, every occurrence of it.',
      input: z.strictObject(eventRef),
      output: z.object({ deleted: z.literal(true) }),
      run: async (actor, { eventId }) => {
        await events.delete(actor, eventId);
        return { deleted: true as const };
      },
    }),
  ];
}
