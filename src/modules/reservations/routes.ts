import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idempotencyHeaders, idempotencyHooks } from '../../http/idempotency.js';
import { dryRunQuery, idParam, page, security } from '../../http/schemas.js';
import { dryRunAnswer, seriesDryRun } from './dry-run-schemas.js';
import {
  attendanceBody,
  attendanceCounts,
  attendanceCountsQuery,
  cancelReservationBody,
  cancelSeriesBody,
  createHoldBody,
  createReservationBody,
  listReservationsQuery,
  rescheduleBody,
  reservation,
  reservationSeries,
  seriesBooking,
} from './schemas.js';

const tags = ['reservations'];
const errors = errorResponses(400, 401, 403, 404, 409);
/** What `?dryRun=true` answers (200): the would-be record (id null), or the refusal with its alternatives. */
const dryRun = dryRunAnswer(reservation);
const alternativesNote =
  ' (both with error.alternatives: up to 5 bookable times nearest the requested start); ?dryRun=true writes nothing and answers 200 {wouldSucceed, reservation | error}';

export const reservationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { reservations, idempotency } = app.services;
  app.addHook('onRequest', app.requireUser);
  // Keys are the caller's own: one person's key never replays another's booking.
  const idempotent = idempotencyHooks(idempotency, (request) => {
    const { userId } = actorOf(request);
    return { scope: `user:${userId}`, userId };
  });

  app.post(
    '/',
    {
      ...idempotent,
      schema: {
        tags,
        summary: `Book a resource or a pool of the active organisation (409 SLOT_UNAVAILABLE when it does not fit, 409 BOOKING_RULE_VIOLATED when it breaks the type's booking rules${alternativesNote}). With recurrence (types with recurringEnabled, else 409 RECURRENCE_NOT_ENABLED): a series, every occurrence or none: 201 {seriesId, reservations}, or 409 SLOT_UNAVAILABLE with error.conflicts naming each occurrence that does not fit`,
        security: security.user,
        headers: idempotencyHeaders,
        querystring: dryRunQuery,
        body: createReservationBody,
        response: { 201: reservation.or(seriesBooking), 200: dryRun.or(seriesDryRun), ...errors },
      },
    },
    async (request, reply) =>
      request.query.dryRun
        ? reservations.dryRunCreate(actorOf(request), request.body)
        : reply.code(201).send(await reservations.createAny(actorOf(request), request.body)),
  );

  app.get(
    '/series/:id',
    {
      schema: {
        tags,
        summary:
          'A recurring series: its RFC 5545 lines and every occurrence (cancelled ones too), by start time',
        security: security.user,
        params: idParam,
        response: { 200: reservationSeries, ...errors },
      },
    },
    async (request) => reservations.getSeries(actorOf(request), request.params.id),
  );

  app.post(
    '/series/:id/cancel',
    {
      schema: {
        tags,
        summary:
          "Cancel every occurrence of a series not yet started (OWNER, ADMIN, MANAGER or its creator); answers the series. Within the type's cancelNoticeMinutes of the next occurrence: 409 BOOKING_RULE_VIOLATED unless staff pass overrideRules",
        security: security.user,
        params: idParam,
        body: cancelSeriesBody.nullish(),
        response: { 200: reservationSeries, ...errors },
      },
    },
    async (request) => reservations.cancelSeries(actorOf(request), request.params.id, request.body ?? {}),
  );

  app.post(
    '/holds',
    {
      ...idempotent,
      schema: {
        tags,
        summary: `Hold a time for holdSeconds (60..1800, default 600): a held reservation that frees itself at expiresAt unless confirmed or released (409 SLOT_UNAVAILABLE, BOOKING_RULE_VIOLATED${alternativesNote})`,
        security: security.user,
        headers: idempotencyHeaders,
        querystring: dryRunQuery,
        body: createHoldBody,
        response: { 201: reservation, 200: dryRun, ...errors },
      },
    },
    async (request, reply) =>
      request.query.dryRun
        ? reservations.dryRunHold(actorOf(request), request.body)
        : reply.code(201).send(await reservations.hold(actorOf(request), request.body)),
  );

  app.post(
    '/:id/reschedule',
    {
      ...idempotent,
      schema: {
        tags,
        summary: `Move a held, pending_payment or confirmed reservation to another time (and resource, where the booking mode takes one), keeping its id, status, expiry and payment (OWNER, ADMIN, MANAGER or its creator): 409 SLOT_UNAVAILABLE leaves it as it was, 409 BOOKING_RULE_VIOLATED unless staff pass overrideRules, 409 INVALID_TRANSITION in another status${alternativesNote}`,
        security: security.user,
        headers: idempotencyHeaders,
        params: idParam,
        querystring: dryRunQuery,
        body: rescheduleBody,
        response: { 200: reservation.or(dryRun), ...errors },
      },
    },
    async (request) =>
      request.query.dryRun
        ? reservations.dryRunReschedule(actorOf(request), request.params.id, request.body)
        : reservations.reschedule(actorOf(request), request.params.id, request.body),
  );

  app.post(
    '/:id/confirm',
    {
      schema: {
        tags,
        summary:
          'Confirm a hold before its expiresAt (409 HOLD_EXPIRED after; OWNER, ADMIN, MANAGER or its creator)',
        security: security.user,
        params: idParam,
        response: { 200: reservation, ...errors },
      },
    },
    async (request) => reservations.confirm(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/release',
    {
      schema: {
        tags,
        summary: 'Release a hold: cancelled, its time free at once (OWNER, ADMIN, MANAGER or its creator)',
        security: security.user,
        params: idParam,
        response: { 200: reservation, ...errors },
      },
    },
    async (request) => reservations.release(actorOf(request), request.params.id),
  );

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'Reservations of the active organisation, by start time, paged by cursor',
        security: security.user,
        querystring: listReservationsQuery,
        response: { 200: page(reservation), ...errors },
      },
      config: { serviceInput: 'query', reads: 'replica' },
    },
    async (request) => reservations.list(actorOf(request), request.query),
  );

  app.get(
    '/attendance-counts',
    {
      schema: {
        tags,
        summary:
          "How many of one customer's reservations in the active organisation were marked attended and no_show",
        security: security.user,
        querystring: attendanceCountsQuery,
        response: { 200: attendanceCounts, ...errors },
      },
    },
    async (request) => reservations.attendanceCounts(actorOf(request), request.query.customerEmail),
  );

  app.post(
    '/:id/attendance',
    {
      schema: {
        tags,
        summary:
          'Mark whether the customer came (OWNER, ADMIN, MANAGER): attended or no_show, on a confirmed reservation once it started (409 INVALID_TRANSITION before its start or in another status); a mark may be changed to the other. no_show writes the event reservation.no_show',
        security: security.user,
        params: idParam,
        body: attendanceBody,
        response: { 200: reservation, ...errors },
      },
    },
    async (request) => reservations.markAttendance(actorOf(request), request.params.id, request.body),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One reservation',
        security: security.user,
        params: idParam,
        response: { 200: reservation, ...errors },
      },
    },
    async (request) => reservations.get(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/cancel',
    {
      schema: {
        tags,
        summary:
          "Cancel a reservation (OWNER, ADMIN, MANAGER or its creator); within the type's cancelNoticeMinutes 409 BOOKING_RULE_VIOLATED unless staff pass overrideRules",
        security: security.user,
        params: idParam,
        body: cancelReservationBody.nullish(),
        response: { 200: reservation, ...errors },
      },
    },
    async (request) => reservations.cancel(actorOf(request), request.params.id, request.body ?? {}),
  );
};
