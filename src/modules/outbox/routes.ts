import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { feedPage, feedQuery } from './schemas.js';

const tags = ['events'];
const description =
  'Events in id order after `after` (exclusive), kept 30 days. Poll with `nextCursor` as `after`: an id is answered only once no smaller one can still appear, so no event is skipped.';

/** The organisation's feed, under /api/organisations (OWNER and ADMIN only). */
export const organisationFeedRoutes: FastifyPluginAsyncZod = async (app) => {
  const { outbox } = app.services;
  app.get(
    '/:id/events',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "The organisation's events (OWNER, ADMIN)",
        description,
        security: security.user,
        params: idParam,
        querystring: feedQuery,
        response: { 200: feedPage, ...errorResponses(400, 401, 403, 404) },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => outbox.organisationFeed(actorOf(request), request.params.id, request.query),
  );
};

/** The caller's own events, under /api/me. */
export const personalFeedRoutes: FastifyPluginAsyncZod = async (app) => {
  const { outbox } = app.services;
  app.get(
    '/events',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Your own events: those that concern you (userId is yours)',
        description,
        security: security.user,
        querystring: feedQuery,
        response: { 200: feedPage, ...errorResponses(400, 401) },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => outbox.personalFeed(actorOf(request), request.query),
  );
};
