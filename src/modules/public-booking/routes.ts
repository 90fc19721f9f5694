import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/errors.js';
import { idempotencyHeaders, idempotencyHooks } from '../../http/idempotency.js';
import { security } from '../../http/schemas.js';
import { notFound } from '../../lib/errors.js';
import { rangeQuery, resourceAvailability, typeAvailability } from '../availability/schemas.js';
import {
  holdBody,
  publicReservation,
  reservationBody,
  tokenReservationBody,
} from '../reservations/schemas.js';
import {
  publicCatalogue,
  publicResourcePage,
  slugAvailabilityQuery,
  slugParam,
  tokenParam,
} from './schemas.js';

const tags = ['public booking'];
const errors = errorResponses(400, 404, 409, 429);

export const publicBookingRoutes: FastifyPluginAsyncZod = async (app) => {
  const { publicBooking } = app.services;
  const enabled = app.services.platform.featureFlags().flags.publicBooking !== false;
  // Anyone can reach these; each route has its own, tighter rate limit.
  const config = { rateLimit: { max: app.config.publicRateLimitMax, timeWindow: '1 minute' } };
  app.addHook('onRequest', async () => {
    if (!enabled) throw notFound('Public booking');
  });
  // No account here: a key belongs to the client's IP address (and the fingerprint holds the
  // route, slug or token), so a guessed key from elsewhere never replays someone's booking.
  const idempotent = idempotencyHooks(app.services.idempotency, (request) => ({
    scope: `ip:${request.ip}`,
    userId: null,
  }));

  app.get(
    '/organisations/:slug',
    {
      config,
      schema: {
        tags,
        summary: "An organisation's booking page: branding, bookable types and resources",
        security: security.public,
        params: slugParam,
        response: { 200: publicCatalogue, ...errors },
      },
    },
    async (request) => publicBooking.catalogue(request.params.slug),
  );

  app.get(
    '/organisations/:slug/availability',
    {
      config,
      schema: {
        tags,
        summary: 'Availability of one resource (resourceId) or one type (resourceTypeId)',
        security: security.public,
        params: slugParam,
        querystring: slugAvailabilityQuery,
        response: { 200: resourceAvailability.or(typeAvailability), ...errors },
      },
    },
    async (request) => publicBooking.slugAvailability(request.params.slug, request.query),
  );

  app.post(
    '/organisations/:slug/reservations',
    {
      config,
      ...idempotent,
      schema: {
        tags,
        summary: 'Book through the organisation page (same body as POST /api/reservations)',
        security: security.public,
        params: slugParam,
        headers: idempotencyHeaders,
        body: reservationBody,
        response: { 201: publicReservation, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await publicBooking.bookBySlug(request.params.slug, request.body)),
  );

  app.post(
    '/organisations/:slug/holds',
    {
      config,
      ...idempotent,
      schema: {
        tags,
        summary:
          'Hold a time through the organisation page for holdSeconds (60..1800, default 600): a held reservation',
        security: security.public,
        params: slugParam,
        headers: idempotencyHeaders,
        body: holdBody,
        response: { 201: publicReservation, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await publicBooking.holdBySlug(request.params.slug, request.body)),
  );

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
      config,
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
        body: tokenReservationBody,
        response: { 201: publicReservation, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await publicBooking.bookByToken(request.params.token, request.body)),
  );
};
