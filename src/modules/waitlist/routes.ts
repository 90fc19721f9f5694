import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { joinWaitlistBody, listWaitlistQuery, waitlistEntry, waitlistList } from './schemas.js';

const tags = ['waitlist'];
const errors = errorResponses(400, 401, 403, 404, 409);

/**
 * `/api/reservations/waitlist`: its own prefix, registered beside the reservations' routes;
 * Fastify matches the static `waitlist` segment before the reservations' `/:id`.
 */
export const waitlistRoutes: FastifyPluginAsyncZod = async (app) => {
  const { waitlist } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.post(
    '/',
    {
      schema: {
        tags,
        summary:
          'Wait for a full time (the create body of a reservation) on a type with waitlistEnabled: 201 waiting, with its position. A bookable time: 409 SLOT_AVAILABLE; without the flag: 409 WAITLIST_NOT_ENABLED. When capacity frees, the oldest fitting entry gets a held reservation for the type’s waitlistOfferMinutes (status offered); confirming it accepts the entry',
        security: security.user,
        body: joinWaitlistBody,
        response: { 201: waitlistEntry, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await waitlist.join(actorOf(request), request.body)),
  );

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'Waitlist entries of the active organisation, oldest first (OWNER, ADMIN, MANAGER)',
        security: security.user,
        querystring: listWaitlistQuery,
        response: { 200: waitlistList, ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => waitlist.list(actorOf(request), request.query),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary:
          'One waitlist entry: your own, or any of the organisation for OWNER, ADMIN, MANAGER (404 otherwise)',
        security: security.user,
        params: idParam,
        response: { 200: waitlistEntry, ...errors },
      },
    },
    async (request) => waitlist.get(actorOf(request), request.params.id),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary:
          'Leave the waitlist (status left); an offer not yet confirmed is released and goes to the next in line. Someone else’s entry: 404 unless OWNER, ADMIN, MANAGER',
        security: security.user,
        params: idParam,
        response: { 200: waitlistEntry, ...errors },
      },
    },
    async (request) => waitlist.leave(actorOf(request), request.params.id),
  );
};
