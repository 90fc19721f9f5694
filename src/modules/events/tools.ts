import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import {
  createEventBody,
  event,
  eventOccurrence,
  eventRangeQuery,
  freeBusy,
  freeBusyBody,
  updateEventBody,
} from './schemas.js';
import type { EventService } from './service.js';

const eventRef = { eventId: entityId };

/** MCP tools of events: reads and writes through the event service, within the agent's calendar scope. */
export const eventTools = [
  defineTool({
    actionKey: 'calendar.events.read',
    title: 'Read events',
    description:
      'Event occurrences of a calendar overlapping [from, to) (at most 366 days); recurring events are expanded.',
    catalogue: {
      description: 'Event occurrences of a calendar within a range (from, to).',
      risk: 'read',
      scopeKinds: ['calendar', 'userGroup'],
    },
    input: z.strictObject({ calendarId: entityId, ...eventRangeQuery.shape }),
    output: z.object({ occurrences: z.array(eventOccurrence) }),
    run: async (events: EventService, actor, { calendarId, from, to }) => ({
      occurrences: await events.listOccurrences(actor, calendarId, { from, to }),
    }),
  }),
  defineTool({
    actionKey: 'calendar.freeBusy.read',
    title: 'Read free/busy',
    description:
      'Busy time of your own calendars in [from, to) (at most 62 days): merged busy periods per calendar, without what the events are. calendarIds: some of yours; default all of them.',
    catalogue: {
      description: 'Busy periods of own calendars within a range, without event details.',
      risk: 'read',
      scopeKinds: ['calendar'],
    },
    input: freeBusyBody,
    output: freeBusy,
    run: (events: EventService, actor, query) => events.freeBusy(actor, query),
  }),
  defineTool({
    actionKey: 'calendar.events.get',
    title: 'Read event',
    description: 'One event with its recurrence lines and reminders.',
    catalogue: {
      description: 'One event with its recurrence and reminders.',
      risk: 'read',
      scopeKinds: ['calendar', 'userGroup'],
    },
    input: z.strictObject(eventRef),
    output: event,
    run: (events: EventService, actor, { eventId }) => events.get(actor, eventId),
  }),
  defineTool({
    actionKey: 'calendar.events.create',
    title: 'Create event',
    description:
      'A new event in a calendar you own. Recurrence is a list of RFC 5545 lines (RRULE:, EXDATE:, RDATE:).',
    catalogue: {
      description: 'A new event in an own calendar.',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject({ calendarId: entityId, ...createEventBody.shape }),
    output: event,
    run: (events: EventService, actor, { calendarId, ...input }) => events.create(actor, calendarId, input),
  }),
  defineTool({
    actionKey: 'calendar.events.update',
    title: 'Update event',
    description: 'Changes an event of a calendar you own (the whole series of a recurring event).',
    catalogue: {
      description: 'Changes an event of an own calendar.',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject({ ...eventRef, ...updateEventBody.shape }),
    output: event,
    run: (events: EventService, actor, { eventId, ...changes }) => events.update(actor, eventId, changes),
  }),
  defineTool({
    actionKey: 'calendar.events.delete',
    title: 'Delete event',
    description: 'Deletes an event of a calendar you own, every occurrence of it.',
    catalogue: {
      description: 'Deletes an event (every occurrence) of an own calendar.',
      risk: 'destructive',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject(eventRef),
    output: z.object({ deleted: z.literal(true) }),
    run: async (events: EventService, actor, { eventId }) => {
      await events.delete(actor, eventId);
      return { deleted: true as const };
    },
  }),
];
