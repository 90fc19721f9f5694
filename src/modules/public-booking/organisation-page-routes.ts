import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyHeaders } from '../../http/idempotency.js';
import { dryRunQuery, security } from '../../http/schemas.js';
import { resourceAvailability, typeAvailability } from '../availability/schemas.js';
import { holdBody, reservationBody, slugReservationBody } from '../reservations/schemas.js';
import { dryRun, errors, type PublicRouteOptions, tags } from './route-options.js';
import {
  bookedPublicReservation,
  bookedPublicSeries,
  publicCatalogue,
  publicSeriesDryRun,
  publicWaitlistEntry,
  slugAvailabilityQuery,
  slugParam,
} from './schemas.js';

/** An organisation's booking page by its slug: its catalogue and availability, booking, holding, waiting. */
export const organisationPageRoutes: FastifyPluginAsyncZod<PublicRouteOptions> = async (app, options) => {
  const { publicBooking } = app.services;
  const { config, idempotent } = options;

  app.get(
    '/organisations/:slug',
    {
      config: { ...config, reads: 'replica' },
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
      config: { ...config, reads: 'replica' },
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
        summary:
          'Book through the organisation page (same body as POST /api/reservations; ?dryRun=true writes nothing and answers 200 {wouldSucceed, reservation | error}). With recurrence (types with recurringEnabled, else 409 RECURRENCE_NOT_ENABLED): a series, every occurrence or none: 201 {seriesId, reservations}, each occurrence with its own manage link, or 409 SLOT_UNAVAILABLE with error.conflicts',
        security: security.public,
        params: slugParam,
        headers: idempotencyHeaders,
        querystring: dryRunQuery,
        body: slugReservationBody,
        response: {
          201: bookedPublicReservation.or(bookedPublicSeries),
          200: dryRun.or(publicSeriesDryRun),
          ...errors,
        },
      },
    },
    async (request, reply) =>
      request.query.dryRun
        ? publicBooking.dryRunBookBySlug(request.params.slug, request.body)
        : reply.code(201).send(await publicBooking.bookBySlug(request.params.slug, request.body)),
  );

  app.post(
    '/organisations/:slug/waitlist',
    {
      config,
      schema: {
        tags,
        summary:
          'Wait for a full time through the organisation page (same body as booking) on a type with waitlistEnabled: 201 the entry with a manage link; a bookable time: 409 SLOT_AVAILABLE; without the flag: 409 WAITLIST_NOT_ENABLED. When the time frees, a held reservation is offered at that manage link',
        security: security.public,
        params: slugParam,
        body: reservationBody,
        response: { 201: publicWaitlistEntry, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await publicBooking.joinWaitlistBySlug(request.params.slug, request.body)),
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
        querystring: dryRunQuery,
        body: holdBody,
        response: { 201: bookedPublicReservation, 200: dryRun, ...errors },
      },
    },
    async (request, reply) =>
      request.query.dryRun
        ? publicBooking.dryRunHoldBySlug(request.params.slug, request.body, request.ip)
        : reply.code(201).send(await publicBooking.holdBySlug(request.params.slug, request.body, request.ip)),
  );
};
