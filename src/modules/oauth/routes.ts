import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/errors.js';
import { security } from '../../http/schemas.js';
import { notFound } from '../../lib/errors.js';
import { authorizationRoutes } from './authorization-routes.js';
import { NO_STORE, tags } from './route-shared.js';
import {
  authorizationServerMetadata,
  protectedResourceMetadata,
  registerClientBody,
  registeredClient,
} from './schemas.js';
import { tokenRoute } from './token-routes.js';

/** The most a registration body may be (DECISIONS.md, OAuth hardening). */
const REGISTRATION_BODY_MAX_BYTES = 16 * 1024;

/** Discovery documents change only with a deployment; any origin may read them. */
function sendDiscovery(reply: FastifyReply, document: object) {
  reply.header('cache-control', 'public, max-age=300');
  // An allow-listed origin already got its CORS headers (with credentials); any other may read it too.
  if (!reply.hasHeader('access-control-allow-origin')) reply.header('access-control-allow-origin', '*');
  return reply.send(document);
}
/** /api/oauth/*: registration, authorization, the consent API, and the token endpoint. */
const apiRoutes: FastifyPluginAsyncZod = async (app) => {
  const { oauth } = app.services;
  app.post(
    '/register',
    {
      // Anyone may register: a few registrations per IP an hour, each small (DECISIONS.md, OAuth hardening).
      config: { rateLimit: { max: app.config.registrationRateLimitMax, timeWindow: '1 hour' } },
      bodyLimit: REGISTRATION_BODY_MAX_BYTES,
      schema: {
        tags,
        summary: 'Register a public client (RFC 7591 dynamic client registration)',
        description:
          'No client secret is issued: token_endpoint_auth_method is always `none`. Client metadata ' +
          'this server does not use is accepted and ignored (RFC 7591 §2). Failures are 400 ' +
          '`VALIDATION_FAILED` in the error envelope. The body is at most 16 KiB (413 ' +
          '`PAYLOAD_TOO_LARGE`); REGISTRATION_RATE_LIMIT_MAX registrations per IP an hour (429 ' +
          '`RATE_LIMITED`). A client nobody approves within 24 hours is deleted.',
        security: security.public,
        body: registerClientBody,
        response: { 201: registeredClient, ...errorResponses(400, 413, 429) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .headers(NO_STORE)
        .send(await oauth.register(request.body)),
  );

  await app.register(authorizationRoutes);
  await app.register(tokenRoute);
};

/** Discovery, registration, authorization, consent and token endpoints of the OAuth 2.1 server. */
export const oauthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { oauth } = app.services;
  app.addHook('onRequest', async () => {
    if (!oauth.enabled) throw notFound('OAuth');
  });

  const protectedResource = {
    schema: {
      tags,
      summary: 'OAuth protected resource metadata of /api/mcp (RFC 9728)',
      security: security.public,
      response: { 200: protectedResourceMetadata },
    },
  };
  const sendProtectedResource = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendDiscovery(reply, oauth.protectedResourceMetadata());
  app.get('/.well-known/oauth-protected-resource', protectedResource, sendProtectedResource);
  app.get('/.well-known/oauth-protected-resource/api/mcp', protectedResource, sendProtectedResource);

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags,
        summary: 'OAuth authorization server metadata (RFC 8414)',
        security: security.public,
        response: { 200: authorizationServerMetadata },
      },
    },
    async (_request, reply) => sendDiscovery(reply, oauth.authorizationServerMetadata()),
  );

  await app.register(apiRoutes, { prefix: '/api/oauth' });
};
