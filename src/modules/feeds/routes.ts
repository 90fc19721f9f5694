import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { sha256 } from '../../lib/crypto.js';
import { feedFileParam, feedUrl } from './schemas.js';

const tags = ['feeds'];
/** Calendar apps poll a feed every few minutes; more than this is no calendar app. */
const FEED_READS_PER_MINUTE = 120;

/** Whether an If-None-Match header names `etag` (a list, or `*`; weak tags compare by value). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

export const feedRoutes: FastifyPluginAsyncZod = async (app) => {
  const { feeds } = app.services;
  const errors = errorResponses(400, 401, 404);
  const revoked = { 204: z.null().describe('Revoked: the URL answers 404 from now on'), ...errors };

  app.post(
    '/calendars/:id/feed',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'A secret subscription URL (.ics) of a calendar you own: shown once, replaces any earlier one',
        security: security.user,
        params: idParam,
        response: { 201: feedUrl, 403: errorEnvelope, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await feeds.createCalendarFeed(actorOf(request), request.params.id)),
  );

  app.delete(
    '/calendars/:id/feed',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "Revoke a calendar's subscription URL",
        security: security.user,
        params: idParam,
        response: { ...revoked, 403: errorEnvelope },
      },
    },
    async (request, reply) => {
      await feeds.revokeCalendarFeed(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/resources/:id/feed',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          "A secret subscription URL (.ics) of a resource's reservations (OWNER, ADMIN, MANAGER): shown once, replaces any earlier one; times only, no customer data",
        security: security.user,
        params: idParam,
        response: { 201: feedUrl, 403: errorEnvelope, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await feeds.createResourceFeed(actorOf(request), request.params.id)),
  );

  app.delete(
    '/resources/:id/feed',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "Revoke a resource's subscription URL (OWNER, ADMIN, MANAGER)",
        security: security.user,
        params: idParam,
        response: { ...revoked, 403: errorEnvelope, 409: errorEnvelope },
      },
    },
    async (request, reply) => {
      await feeds.revokeResourceFeed(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/feeds/:file',
    {
      // A limit per URL of its own, keyed by the token's hash (the token is a credential).
      config: {
        reads: 'replica',
        rateLimit: {
          max: FEED_READS_PER_MINUTE,
          timeWindow: '1 minute',
          keyGenerator: (request) => `feed:${sha256((request.params as { file?: string }).file ?? '')}`,
        },
      },
      schema: {
        tags,
        summary:
          'A subscription feed (RFC 5545) by its secret URL; ETag, and 304 for If-None-Match with the current tag',
        params: feedFileParam,
        response: {
          200: z.string().describe('text/calendar'),
          304: z.null().describe('Unchanged since the tag sent'),
          404: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const feed = await feeds.render(request.params.file);
      // The URL is a credential: no shared cache keeps it, no page it opens from learns it.
      reply.header('etag', feed.etag);
      reply.header('cache-control', 'private, no-cache');
      reply.header('referrer-policy', 'no-referrer');
      // No body at all: Node drops a 304's, the in-process injector of the tests would not.
      if (matches(request.headers['if-none-match'], feed.etag))
        return reply.code(304).send(undefined as never);
      return reply.type('text/calendar; charset=utf-8').send(feed.body);
    },
  );
};
