import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  createResourceBody,
  effectiveSchedule,
  listResourcesQuery,
  publicToken,
  resource,
  updateResourceBody,
} from './schemas.js';

const tags = ['resources'];
const errors = errorResponses(400, 401, 403, 404, 409);

export const resourceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { resources } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a resource; capacity N > 1 seeds N capacity lanes (OWNER, ADMIN, MANAGER)',
        security: security.user,
        body: createResourceBody,
        response: { 201: resource, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await resources.create(actorOf(request), request.body)),
  );

  app.get(
    '/',
    {
      config: { reads: 'replica' },
      schema: {
        tags,
        summary: 'Resources of the active organisation, each parent followed by its lanes',
        security: security.user,
        querystring: listResourcesQuery,
        response: { 200: z.array(resource), ...errors },
      },
    },
    async (request) => resources.list(actorOf(request), request.query),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One resource',
        security: security.user,
        params: idParam,
        response: { 200: resource, ...errors },
      },
    },
    async (request) => resources.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary:
          'Change a resource; lanes follow capacity, name, type and active state (OWNER, ADMIN, MANAGER; its manager may change blockOnManagerCalendars and bookingCalendarId)',
        security: security.user,
        params: idParam,
        body: updateResourceBody,
        response: { 200: resource, ...errors },
      },
    },
    async (request) => resources.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a resource without lanes (409 RESOURCE_HAS_CHILD_LANES otherwise)',
        security: security.user,
        params: idParam,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await resources.remove(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/:id/cascade',
    {
      schema: {
        tags,
        summary: 'Delete a parent resource and its capacity lanes together',
        security: security.user,
        params: idParam,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await resources.removeWithLanes(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:id/public-token',
    {
      schema: {
        tags,
        summary: 'The public booking token and link of a resource (legacy token booking)',
        security: security.user,
        params: idParam,
        response: { 200: publicToken, ...errors },
      },
    },
    async (request) => resources.publicToken(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/regenerate-token',
    {
      schema: {
        tags,
        summary: 'Replace the public booking token; links with the old one stop working',
        security: security.user,
        params: idParam,
        response: { 200: publicToken, ...errors },
      },
    },
    async (request) => resources.regenerateToken(actorOf(request), request.params.id),
  );

  app.get(
    '/:id/schedule',
    {
      schema: {
        tags,
        summary: 'Effective schedule and the scope each section comes from',
        security: security.user,
        params: idParam,
        response: { 200: effectiveSchedule, ...errors },
      },
    },
    async (request) => resources.schedule(actorOf(request), request.params.id),
  );
};
