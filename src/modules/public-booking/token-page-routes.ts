import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyHeaders } from '../../http/idempotency.js';
import { dryRunQuery, security } from '../../http/schemas.js';
import { rangeQuery, resourceAvailability } from '../availability/schemas.js';
import { tokenReservationBody } from '../reservations/schemas.js';
import { dryRun, errors, type PublicRouteOptions, tags } from './route-options.js';
import { bookedPublicReservation, publicResourcePage, tokenParam } from './schemas.js';

/** The legacy page of one resource by its public token: the resource, its availability, booking. */
export const tokenPageRoutes: FastifyPluginAsyncZod<PublicRouteOptions> = async (app, options) => {
  const { publicBooking } = app.services;
  const { config, idempotent } = options;

  app.get(
    '/resources/:token',
    {
      config,
      schema: {
        tags,
        summary: 'A resource by its public token (legacy path; prefer the organisation slug)',
        deprecated: true,
        security: security.public,
        params: tokenParam,
        response: { 200: publicResourcePage, ...errors },
      },
    },
    async (request) => publicBooking.resourcePage(request.params.token),
  );

  app.get(
    '/resources/:token/availability',
    {
      config: { ...config, reads: 'replica' },
      schema: {
        tags,
        summary: 'Availability of a resource by its public token (legacy)',
        deprecated: true,
        security: security.public,
        params: tokenParam,
        querystring: rangeQuery,
        response: { 200: resourceAvailability, ...errors },
      },
    },
    async (request) => publicBooking.tokenAvailability(request.params.token, request.query),
  );

  app.post(
    '/resources/:token/reservations',
    {
      config,
      ...idempotent,
      schema: {
        tags,
        summary: 'Book a resource by its public token (legacy; the token fixes the resource)',
        deprecated: true,
        security: security.public,
        params: tokenParam,
        headers: idempotencyHeaders,
        querystring: dryRunQuery,
        body: tokenReservationBody,
        response: { 201: bookedPublicReservation, 200: dryRun, ...errors },
      },
    },
    async (request, reply) =>
      request.query.dryRun
        ? publicBooking.dryRunBookByToken(request.params.token, request.body)
        : reply.code(201).send(await publicBooking.bookByToken(request.params.token, request.body)),
  );
};
