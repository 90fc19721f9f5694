import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  commonWindows,
  commonWindowsQuery,
  explainQuery,
  explanation,
  rangeQuery,
  resourceAvailability,
  typeAvailability,
} from './schemas.js';

const tags = ['availability'];
const errors = errorResponses(400, 401, 404, 409);
const explainErrors = errorResponses(400, 401, 403, 404);
const explainDescription =
  'Why startTime..endTime (at most 31 days) can or cannot be booked, as the availability engine judges it: each reason (OUTSIDE_HOURS, CLOSED_DAY, INACTIVE, NOTICE, ADVANCE, BOOKED, HELD, BUFFER, CALENDAR_BUSY, DAILY_CAP, TOO_SHORT, OFF_GRID) with the part of the time it covers; never what a calendar event is or whose. OWNER, ADMIN or MANAGER.';

export const availabilityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { availability } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/availability',
    {
      config: { reads: 'replica' },
      schema: {
        tags,
        summary: 'Where several resources are all free: the windows a collective booking fits in',
        description:
          "resourceIds: 2 to 5 resources of the organisation, comma-separated. Each resource's own hours, rules, bookings, buffers and busy calendars count. Range at most 62 days.",
        security: security.user,
        querystring: commonWindowsQuery,
        response: { 200: commonWindows, ...errors },
      },
    },
    async (request) => availability.commonAvailability(actorOf(request), request.query),
  );

  app.get(
    '/resources/:id/availability',
    {
      config: { reads: 'replica' },
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
      config: { reads: 'replica' },
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

  app.get(
    '/resources/:id/availability/explain',
    {
      config: { reads: 'replica' },
      schema: {
        tags,
        summary: 'Why a time can or cannot be booked on a resource (its lanes pooled), or on one lane',
        description: explainDescription,
        security: security.user,
        params: idParam,
        querystring: explainQuery,
        response: { 200: explanation, ...explainErrors },
      },
    },
    async (request) => availability.resourceExplanation(actorOf(request), request.params.id, request.query),
  );

  app.get(
    '/resource-types/:id/availability/explain',
    {
      config: { reads: 'replica' },
      schema: {
        tags,
        summary: 'Why a time can or cannot be booked on each resource of a resource type',
        description: explainDescription,
        security: security.user,
        params: idParam,
        querystring: explainQuery,
        response: { 200: explanation, ...explainErrors },
      },
    },
    async (request) => availability.typeExplanation(actorOf(request), request.params.id, request.query),
  );
};
