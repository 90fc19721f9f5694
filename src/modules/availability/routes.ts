import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { rangeQuery, resourceAvailability, typeAvailability } from './schemas.js';

const tags = ['availability'];
const errors = errorResponses(400, 401, 404, 409);

export const availabilityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { availability } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/resources/:id/availability',
    {
      schema: {
        tags,
        summary: "Free windows (continuous) or slots (shifts) of a resource, in the organisation's time zone",
        description:
          'A parent with capacity lanes answers for its lanes, with the number free. Range at most 62 days.',
        security: security.user,
        params: idParam,
        querystring: rangeQuery,
        response: { 200: resourceAvailability, ...errors },
      },
    },
    async (request) => availability.resourceAvailability(actorOf(request), request.params.id, request.query),
  );

  app.get(
    '/resource-types/:id/availability',
    {
      schema: {
        tags,
        summary: 'Availability of a resource type by its booking mode: pooled, per resource, or both',
        security: security.user,
        params: idParam,
        querystring: rangeQuery,
        response: { 200: typeAvailability, ...errors },
      },
    },
    async (request) => availability.typeAvailability(actorOf(request), request.params.id, request.query),
  );
};
