import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  createEventBody,
  event,
  eventOccurrence,
  eventRangeQuery,
  freeBusy,
  freeBusyBody,
} from '../events/schemas.js';
import { calendar, createCalendarBody, updateCalendarBody } from './schemas.js';

const tags = ['calendars'];

export const calendarRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calendars, events } = app.services;
  const errors = errorResponses(400, 401, 404);

  app.get(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Your calendars (default first), then calendars shared with you through people groups',
        security: security.user,
        response: { 200: z.array(calendar), ...errors },
      },
    },
    async (request) => calendars.list(actorOf(request)),
  );

  app.post(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Create a calendar',
        security: security.user,
        body: createCalendarBody,
        response: { 201: calendar, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await calendars.create(actorOf(request), request.body)),
  );

  app.post(
    '/free-busy',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'Busy time of your own calendars in [from, to) (at most 62 days): merged opaque events, never what they are',
        security: security.user,
        body: freeBusyBody,
        response: { 200: freeBusy, ...errors },
      },
    },
    async (request) => events.freeBusy(actorOf(request), request.body),
  );

  app.get(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'A calendar you own or that is shared with you',
        security: security.user,
        params: idParam,
        response: { 200: calendar, ...errors },
      },
    },
    async (request) => calendars.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Change a calendar you own',
        security: security.user,
        params: idParam,
        body: updateCalendarBody,
        response: { 200: calendar, 403: errorEnvelope, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => calendars.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Delete a calendar you own with its events (not your default: 409 DEFAULT_CALENDAR)',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Deleted'), 403: errorEnvelope, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      await calendars.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:id/events',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['events'],
        summary: 'Event occurrences overlapping [from, to) (at most 366 days); recurring events expanded',
        security: security.user,
        params: idParam,
        querystring: eventRangeQuery,
        response: { 200: z.array(eventOccurrence), ...errors },
      },
    },
    async (request) => events.listOccurrences(actorOf(request), request.params.id, request.query),
  );

  app.post(
    '/:id/events',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['events'],
        summary: 'Create an event in a calendar you own',
        security: security.user,
        params: idParam,
        body: createEventBody,
        response: { 201: event, 403: errorEnvelope, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await events.create(actorOf(request), request.params.id, request.body)),
  );
};
