import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, page, security } from '../../http/schemas.js';
import { createItemBody, householdItem, listItemsQuery, updateItemBody } from './schemas.js';

const tags = ['household'];
const errors = errorResponses(400, 401, 404);

/** `/api/household`: household inventory, private or shared with a people group. */
export const householdRoutes: FastifyPluginAsyncZod = async (app) => {
  const { household } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/items',
    {
      schema: {
        tags,
        summary: 'Your private items and those of your groups, soonest expiry first, one page at a time',
        security: security.user,
        querystring: listItemsQuery,
        response: { 200: page(householdItem), ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => household.list(actorOf(request), request.query),
  );

  app.post(
    '/items',
    {
      schema: {
        tags,
        summary: 'Add an item, private or shared with a group you belong to',
        security: security.user,
        body: createItemBody,
        response: { 201: householdItem, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await household.create(actorOf(request), request.body)),
  );

  app.get(
    '/items/:id',
    {
      schema: {
        tags,
        summary: 'An item of yours or of one of your groups',
        security: security.user,
        params: idParam,
        response: { 200: householdItem, ...errors },
      },
    },
    async (request) => household.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/items/:id',
    {
      schema: {
        tags,
        summary: 'Change an item (moving it between groups or private: its creator only)',
        security: security.user,
        params: idParam,
        body: updateItemBody,
        response: { 200: householdItem, 403: errorEnvelope, ...errors },
      },
    },
    async (request) => household.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/items/:id',
    {
      schema: {
        tags,
        summary: 'Remove an item',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
    },
    async (request, reply) => {
      await household.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
