import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  createWebhookInput,
  deliveriesQuery,
  delivery,
  deliveryPage,
  deliveryParams,
  updateWebhookInput,
  webhook,
  webhookList,
  webhookParams,
  webhookWithSecret,
} from './schemas.js';

const tags = ['webhooks'];
const errors = errorResponses(400, 401, 403, 404);
const signing =
  'Each delivery is a POST of the event as JSON with the Standard Webhooks headers webhook-id (the event id), webhook-timestamp and webhook-signature (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed by the secret). A 2xx within 10 s succeeds; otherwise it is retried with exponential backoff for up to 3 days, after which the endpoint is disabled.';

/** `/api/organisations/:id/webhooks`: signed webhook endpoints and their delivery log (OWNER, ADMIN). */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { webhooks } = app.services;
  const base = '/:id/webhooks';
  const one = `${base}/:webhookId`;

  app.post(
    base,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Add a webhook endpoint (OWNER, ADMIN); its secret is answered this once',
        description: `The URL must be https on a public address, at most 2048 characters; at most 20 endpoints per organisation. ${signing}`,
        security: security.user,
        params: idParam,
        body: createWebhookInput,
        response: { 201: webhookWithSecret, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.create(actorOf(request), request.params.id, request.body)),
  );

  app.get(
    base,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "The organisation's webhook endpoints (OWNER, ADMIN)",
        security: security.user,
        params: idParam,
        response: { 200: webhookList, ...errors },
      },
    },
    async (request) => webhooks.list(actorOf(request), request.params.id),
  );

  app.get(
    one,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'One webhook endpoint (OWNER, ADMIN)',
        security: security.user,
        params: webhookParams,
        response: { 200: webhook, ...errors },
      },
    },
    async (request) => webhooks.get(actorOf(request), request.params.id, request.params.webhookId),
  );

  app.patch(
    one,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'Change a webhook endpoint: url, events, description, status active or paused (OWNER, ADMIN)',
        description: 'Setting `active` again on a disabled endpoint starts its failures over.',
        security: security.user,
        params: webhookParams,
        body: updateWebhookInput,
        response: { 200: webhook, ...errors },
      },
    },
    async (request) =>
      webhooks.update(actorOf(request), request.params.id, request.params.webhookId, request.body),
  );

  app.delete(
    one,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Delete a webhook endpoint and its delivery log (OWNER, ADMIN)',
        security: security.user,
        params: webhookParams,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
    },
    async (request, reply) => {
      await webhooks.delete(actorOf(request), request.params.id, request.params.webhookId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${one}/rotate-secret`,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Replace the signing secret (OWNER, ADMIN); the new one is answered this once',
        description: 'The old secret signs nothing from this moment on.',
        security: security.user,
        params: webhookParams,
        response: { 200: webhookWithSecret, ...errors },
      },
    },
    async (request) => webhooks.rotateSecret(actorOf(request), request.params.id, request.params.webhookId),
  );

  app.post(
    `${one}/test`,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Send a `webhook.test` event to this endpoint only (OWNER, ADMIN)',
        description:
          'Sent once, whatever the endpoint status, off the request; answers its delivery to follow in the log. At most 10 a minute per endpoint (then 429 `RATE_LIMITED` with Retry-After).',
        security: security.user,
        params: webhookParams,
        response: { 202: delivery, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await webhooks.test(actorOf(request), request.params.id, request.params.webhookId)),
  );

  app.get(
    `${one}/deliveries`,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "The endpoint's deliveries, newest first, one page at a time (OWNER, ADMIN)",
        security: security.user,
        params: webhookParams,
        querystring: deliveriesQuery,
        response: { 200: deliveryPage, ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) =>
      webhooks.deliveries(actorOf(request), request.params.id, request.params.webhookId, request.query),
  );

  app.post(
    `${one}/deliveries/:deliveryId/retry`,
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Send a delivery again now, with a fresh 3-day retry window (OWNER, ADMIN)',
        security: security.user,
        params: deliveryParams,
        response: { 202: delivery, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await webhooks.retry(
            actorOf(request),
            request.params.id,
            request.params.webhookId,
            request.params.deliveryId,
          ),
        ),
  );
};
