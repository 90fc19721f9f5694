import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, personOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { DomainError } from '../../lib/errors.js';
import { accountRoutes } from './account-routes.js';
import { passkeyRoutes } from './passkey-routes.js';
import {
  apiKey,
  createApiKeyBody,
  createdKey,
  loginBody,
  registerBody,
  sessionResponse,
  type User,
  user,
} from './schemas.js';
import { twoFactorChallenge } from './security-schemas.js';
import { sessionCookies, signInContext } from './session-cookies.js';
import { twoFactorRoutes } from './two-factor-routes.js';

// The guard's person is this module's user record (the service's credential verifiers read it).
declare module '../../http/auth.js' {
  interface AuthenticatedPerson extends User {}
}

const tags = ['auth'];

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, platform } = app.services;
  const cookies = sessionCookies(app.config);

  // An IP that touched a honeypot is kept away from every login route for a while: these, and
  // the account, two-factor and passkey routes registered below, which inherit the hook.
  app.addHook('onRequest', async (request) => {
    await platform.assertNotBlocked(request.ip);
  });
  await app.register(accountRoutes);
  await app.register(twoFactorRoutes);
  await app.register(passkeyRoutes, { prefix: '/passkeys' });

  const errors = errorResponses(400, 401, 403, 429);

  app.post(
    '/register',
    {
      // Sign-up mails a link: a few an hour per IP (DECISIONS.md "Accounts").
      config: { rateLimit: { max: app.config.registerRateLimitMax, timeWindow: '1 hour' } },
      schema: {
        tags,
        summary: 'Create an account and start a session',
        description: 'Mails a link that verifies the address (`<FRONTEND_URL>/verify-email/<token>`).',
        security: security.public,
        body: registerBody,
        response: { 201: sessionResponse, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(cookies.send(reply, await auth.register(request.body, signInContext(request)))),
  );

  app.post(
    '/login',
    {
      schema: {
        tags,
        summary: 'Sign in with email and password',
        description:
          'With two-factor on, answers `{twoFactorRequired: true, challenge}` instead (no tokens, no cookies): ' +
          'finish with POST /api/auth/login/2fa.',
        security: security.public,
        body: loginBody,
        response: { 200: z.union([sessionResponse, twoFactorChallenge]), ...errors },
      },
    },
    async (request, reply) => {
      const answer = await auth.login(request.body, request.ip, signInContext(request));
      return 'twoFactorRequired' in answer ? answer : cookies.send(reply, answer);
    },
  );

  app.post(
    '/refresh',
    {
      schema: {
        tags,
        summary: 'Rotate the refresh cookie and get a new access token (needs X-CSRF-Token)',
        security: security.public,
        response: { 200: sessionResponse, ...errors },
      },
    },
    async (request, reply) => {
      cookies.requireCsrf(request);
      const refreshToken = cookies.refreshTokenOf(request);
      if (!refreshToken) throw new DomainError('UNAUTHENTICATED', 'No refresh cookie');
      return cookies.send(reply, await auth.refresh(refreshToken, signInContext(request)));
    },
  );

  app.post(
    '/logout',
    {
      schema: {
        tags,
        summary: 'End the session of the refresh cookie (needs X-CSRF-Token)',
        security: security.public,
        response: { 204: z.null().describe('Signed out'), ...errors },
      },
    },
    async (request, reply) => {
      cookies.requireCsrf(request);
      await auth.logout(cookies.refreshTokenOf(request));
      cookies.clear(reply);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/me',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'The signed-in user',
        security: security.user,
        response: { 200: user, ...errors },
      },
    },
    // The user as the guard read them a moment ago, in this request.
    async (request) => personOf(request),
  );

  app.post(
    '/api-keys',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Create a user API key (the key is shown only in this response)',
        security: security.user,
        body: createApiKeyBody,
        response: { 201: createdKey, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await auth.createApiKey(actorOf(request).userId, request.body.label)),
  );

  app.get(
    '/api-keys',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'List your API keys (never the keys themselves)',
        security: security.user,
        response: { 200: z.array(apiKey), ...errors },
      },
    },
    async (request) => auth.listApiKeys(actorOf(request).userId),
  );

  app.delete(
    '/api-keys/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Revoke an API key',
        security: security.user,
        params: idParam,
        response: { 200: apiKey, 404: errorEnvelope, ...errors },
      },
    },
    async (request) => auth.revokeApiKey(actorOf(request).userId, request.params.id),
  );
};
