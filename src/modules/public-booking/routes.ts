import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/errors.js';
import { idempotencyHeaders, idempotencyHooks } from '../../http/idempotency.js';
import { dryRunQuery, security } from '../../http/schemas.js';
import { notFound } from '../../lib/errors.js';
import { rangeQuery, resourceAvailability, typeAvailability } from '../availability/schemas.js';
import {
  dryRunAnswer,
  holdBody,
  publicReservation,
  reservationBody,
  slugReservationBody,
  tokenReservationBody,
} from '../reservations/schemas.js';
import {
  bookedPublicReservation,
  bookedPublicSeries,
  managedReservation,
  managedSeries,
  managedWaitlistEntry,
  manageRescheduleBody,
  manageTokenParam,
  publicCatalogue,
  publicResourcePage,
  publicSeriesDryRun,
  publicWaitlistEntry,
  slugAvailabilityQuery,
  slugParam,
  tokenParam,
} from './schemas.js';

const tags = ['public booking'];
const errors = errorResponses(400, 404, 409, 429);
/** A manage link past its life answers 410 LINK_EXPIRED. */
const manageErrors = errorResponses(400, 404, 409, 410, 429);
/** What `?dryRun=true` answers (200): the would-be booking (id null, no manage link), or the refusal. */
const dryRun = dryRunAnswer(publicReservation);

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
  // A booking's manage token is shown once: a replay answers it null.
  const idempotent = idempotencyHooks(
    app.services.idempotency,
    (request) => ({ scope: `ip:${request.ip}`, userId: null }),
    { secretFields: ['manageToken', 'manageUrl'] },
  );

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

  // A customer's manage link: the token is the only credential, so an unknown or malformed
  // one is the same 404, and the token never reaches a log line (src/http/logging.ts).
  const manageSchema = { tags, security: security.public, params: manageTokenParam };

  app.get(
    '/reservations/:token',
    {
      config,
      schema: {
        ...manageSchema,
        summary: "A customer's reservation by the manage token its booking answered",
        response: { 200: managedReservation, ...errorResponses(404, 410, 429) },
      },
    },
    async (request) => publicBooking.managedReservation(request.params.token),
  );

  app.post(
    '/reservations/:token/confirm',
    {
      config,
      schema: {
        ...manageSchema,
        summary: 'Confirm the held reservation of a manage token (a paid type goes to payment)',
        response: { 200: managedReservation, ...manageErrors },
      },
    },
    async (request) => publicBooking.confirmManaged(request.params.token),
  );

  app.post(
    '/reservations/:token/cancel',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          "Cancel the reservation of a manage token within its type's cancel notice (a hold is released)",
        response: { 200: managedReservation, ...manageErrors },
      },
    },
    async (request) => publicBooking.cancelManaged(request.params.token),
  );

  app.post(
    '/reservations/:token/reschedule',
    {
      config,
      ...idempotent,
      schema: {
        ...manageSchema,
        summary:
          "Move the reservation of a manage token to another time within its type's rules (409 SLOT_UNAVAILABLE leaves it as it was)",
        headers: idempotencyHeaders,
        body: manageRescheduleBody,
        response: { 200: managedReservation, ...manageErrors },
      },
    },
    async (request) => publicBooking.rescheduleManaged(request.params.token, request.body),
  );

  app.get(
    '/reservations/:token/series',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          'The series the reservation of a manage token belongs to: every occurrence (404 for a reservation of no series)',
        response: { 200: managedSeries, ...errorResponses(404, 410, 429) },
      },
    },
    async (request) => publicBooking.managedSeries(request.params.token),
  );

  app.post(
    '/reservations/:token/series/cancel',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          "Cancel every occurrence not yet started of the manage token's series, each within its type's cancel notice",
        response: { 200: managedSeries, ...manageErrors },
      },
    },
    async (request) => publicBooking.cancelManagedSeries(request.params.token),
  );

  app.get(
    '/waitlist/:token',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          "A customer's waitlist entry by the manage token its joining answered: its status, position and offer",
        response: { 200: managedWaitlistEntry, ...errorResponses(404, 410, 429) },
      },
    },
    async (request) => publicBooking.managedWaitlistEntry(request.params.token),
  );

  app.delete(
    '/waitlist/:token',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          'Leave the waitlist by the manage token (an offer not yet confirmed is let go; 409 INVALID_TRANSITION once accepted, expired or left)',
        response: { 200: managedWaitlistEntry, ...manageErrors },
      },
    },
    async (request) => publicBooking.leaveManagedWaitlist(request.params.token),
  );
};
