import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, personOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { safeEqual } from '../../lib/crypto.js';
import { DomainError } from '../../lib/errors.js';
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
import type { IssuedSession } from './service.js';

// The guard's person is this module's user record (the service's credential verifiers read it).
declare module '../../http/auth.js' {
  interface AuthenticatedPerson extends User {}
}

const REFRESH_COOKIE = 'refresh_token';
const CSRF_COOKIE = 'csrf_token';
const CSRF_HEADER = 'x-csrf-token';
const tags = ['auth'];

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, platform } = app.services;
  const secureCookies = app.config.publicUrl.startsWith('https://');
  const refreshMaxAge = app.config.loginRefreshTokenTtl;

  // An IP that touched a honeypot is kept away from every login route for a while.
  app.addHook('onRequest', async (request) => {
    await platform.assertNotBlocked(request.ip);
  });

  function startSession(reply: FastifyReply, session: IssuedSession) {
    reply.setCookie(REFRESH_COOKIE, session.refreshToken, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies,
      path: '/api/auth',
      maxAge: refreshMaxAge,
    });
    reply.setCookie(CSRF_COOKIE, session.csrfToken, {
      httpOnly: false,
      sameSite: 'lax',
      secure: secureCookies,
      path: '/',
      maxAge: refreshMaxAge,
    });
    const { refreshToken: _refresh, csrfToken: _csrf, ...body } = session;
    return body;
  }

  /** Double-submit check: a cross-site page can send the cookie but cannot read it into the header. */
  function requireCsrf(request: FastifyRequest) {
    const cookie = request.cookies[CSRF_COOKIE];
    const header = request.headers[CSRF_HEADER];
    if (!cookie || typeof header !== 'string' || !safeEqual(cookie, header)) {
      throw new DomainError('CSRF_FAILED', `Header X-CSRF-Token must match the ${CSRF_COOKIE} cookie`);
    }
  }

  const errors = errorResponses(400, 401, 403, 429);

  app.post(
    '/register',
    {
      schema: {
        tags,
        summary: 'Create an account and start a session',
        security: security.public,
        body: registerBody,
        response: { 201: sessionResponse, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(startSession(reply, await auth.register(request.body))),
  );

  app.post(
    '/login',
    {
      schema: {
        tags,
        summary: 'Sign in with email and password',
        security: security.public,
        body: loginBody,
        response: { 200: sessionResponse, ...errors },
      },
    },
    async (request, reply) => startSession(reply, await auth.login(request.body, request.ip)),
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
      requireCsrf(request);
      const refreshToken = request.cookies[REFRESH_COOKIE];
      if (!refreshToken) throw new DomainError('UNAUTHENTICATED', 'No refresh cookie');
      return startSession(reply, await auth.refresh(refreshToken));
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
      requireCsrf(request);
      await auth.logout(request.cookies[REFRESH_COOKIE]);
      reply.clearCookie(REFRESH_COOKIE, { path: '/api/auth' });
      reply.clearCookie(CSRF_COOKIE, { path: '/' });
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
