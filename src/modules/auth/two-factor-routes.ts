import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { personOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { security } from '../../http/schemas.js';
import { sessionResponse } from './schemas.js';
import {
  disableTwoFactorBody,
  enableTwoFactorBody,
  recoveryCodesAnswer,
  secondStepBody,
  twoFactorSetup,
  twoFactorStatus,
} from './security-schemas.js';
import { sessionCookies, signInContext } from './session-cookies.js';

const tags = ['auth'];

/** Two-factor sign-in (TOTP): set-up, turning it off, and the second step of a login. */
export const twoFactorRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth } = app.services;
  const cookies = sessionCookies(app.config);
  const errors = errorResponses(400, 401, 403, 429);

  app.post(
    '/2fa/setup',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'Start setting up two-factor sign-in: a new secret, on once a code of it is confirmed',
        security: security.user,
        response: { 200: twoFactorSetup, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => auth.twoFactor.setup(personOf(request)),
  );

  app.post(
    '/2fa/enable',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'Turn two-factor sign-in on with a code of the new secret; answers the recovery codes once',
        security: security.user,
        body: enableTwoFactorBody,
        response: { 200: recoveryCodesAnswer, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => auth.twoFactor.enable(personOf(request), request.body.code),
  );

  app.post(
    '/2fa/disable',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'Turn two-factor sign-in off with the password and a code (or a recovery code)',
        security: security.user,
        body: disableTwoFactorBody,
        response: { 200: twoFactorStatus, ...errors },
      },
    },
    async (request) => {
      await auth.twoFactor.disable(personOf(request), request.body, request.ip);
      return { twoFactorEnabled: false };
    },
  );

  app.post(
    '/login/2fa',
    {
      config: { rateLimit: { max: app.config.twoFactorRateLimitMax, timeWindow: '15 minutes' } },
      schema: {
        tags,
        summary: "The second step of a login: the login's challenge and a code, or a recovery code",
        security: security.public,
        body: secondStepBody,
        response: { 200: sessionResponse, 410: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      const session = await auth.twoFactor.completeLogin(request.body, request.ip, signInContext(request));
      return cookies.send(reply, session);
    },
  );
};
