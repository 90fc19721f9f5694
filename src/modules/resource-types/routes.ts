import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { colourBody, createResourceTypeBody, resourceTypeAnswer, updateResourceTypeBody } from './schemas.js';

const tags = ['resource types'];
const errors = errorResponses(400, 401, 403, 404, 409);

export const resourceTypeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { resourceTypes } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a resource type in the active organisation (OWNER, ADMIN, MANAGER)',
        security: security.user,
        body: createResourceTypeBody,
        response: { 201: resourceTypeAnswer, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await resourceTypes.create(actorOf(request), request.body)),
  );

  app.get(
    '/',
    {
      config: { reads: 'replica' },
      schema: {
        tags,
        summary: 'Resource types of the active organisation',
        security: security.user,
        response: { 200: z.array(resourceTypeAnswer), ...errors },
      },
    },
    async (request) => resourceTypes.list(actorOf(request)),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One resource type',
        security: security.user,
        params: idParam,
        response: { 200: resourceTypeAnswer, ...errors },
      },
    },
    async (request) => resourceTypes.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Change a resource type (OWNER, ADMIN, MANAGER)',
        security: security.user,
        params: idParam,
        body: updateResourceTypeBody,
        response: { 200: resourceTypeAnswer, ...errors },
      },
    },
    async (request) => resourceTypes.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a resource type without resources (409 RESOURCE_TYPE_IN_USE otherwise)',
        security: security.user,
        params: idParam,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await resourceTypes.remove(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/:id/color',
    {
      schema: {
        tags,
        summary: "Set a resource type's colour",
        security: security.user,
        params: idParam,
        body: colourBody,
        response: { 200: resourceTypeAnswer, ...errors },
      },
    },
    async (request) => resourceTypes.setColour(actorOf(request), request.params.id, request.body.color),
  );
};
