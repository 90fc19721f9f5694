import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idempotencyHeaders, idempotencyHooks } from '../../http/idempotency.js';
import { idParam, page, security } from '../../http/schemas.js';
import { listReservationsQuery, reservation, reservationBody } from './schemas.js';

const tags = ['reservations'];
const errors = errorResponses(400, 401, 403, 404, 409);

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
        summary:
          'Book a resource or a pool of the active organisation (409 SLOT_UNAVAILABLE when it does not fit)',
        security: security.user,
        headers: idempotencyHeaders,
        body: reservationBody,
        response: { 201: reservation, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await reservations.create(actorOf(request), request.body)),
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
      config: { serviceInput: 'query' },
    },
    async (request) => reservations.list(actorOf(request), request.query),
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
        summary: 'Cancel a reservation (OWNER, ADMIN, MANAGER or its creator)',
        security: security.user,
        params: idParam,
        response: { 200: reservation, ...errors },
      },
    },
    async (request) => reservations.cancel(actorOf(request), request.params.id),
  );
};
