import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { event, updateEventBody } from './schemas.js';

const tags = ['events'];

export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { events } = app.services;
  const errors = errorResponses(400, 401, 404);

  app.get(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'An event (the series, not an occurrence) of a calendar you own or that is shared with you',
        security: security.user,
        params: idParam,
        response: { 200: event, ...errors },
      },
    },
    async (request) => events.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Change an event of a calendar you own (the whole series)',
        security: security.user,
        params: idParam,
        body: updateEventBody,
        response: { 200: event, 403: errorEnvelope, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => events.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Delete an event of a calendar you own (the whole series)',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Deleted'), 403: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      await events.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
