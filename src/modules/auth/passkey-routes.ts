import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, personOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { sessionResponse } from './schemas.js';
import {
  authenticationOptions,
  passkey,
  passkeyLoginBody,
  registerPasskeyBody,
  registrationOptions,
} from './security-schemas.js';
import { sessionCookies, signInContext } from './session-cookies.js';

const tags = ['auth'];

/** Passkeys (WebAuthn): register and manage them signed in; sign in with one. */
export const passkeyRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth } = app.services;
  const cookies = sessionCookies(app.config);
  const errors = errorResponses(400, 401, 403, 429);

  app.post(
    '/register/options',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'Options for navigator.credentials.create: a new passkey of this account',
        security: security.user,
        response: { 200: registrationOptions, ...errors },
      },
    },
    async (request) => auth.passkeys.registrationOptions(personOf(request)),
  );

  app.post(
    '/register/verify',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: "Register the passkey the browser created (startRegistration's answer, and a name)",
        security: security.user,
        body: registerPasskeyBody,
        response: { 201: passkey, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      const { name, ...response } = request.body;
      const created = await auth.passkeys.register(personOf(request), response, name ?? null);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Your passkeys (never their keys)',
        security: security.user,
        response: { 200: z.array(passkey), ...errors },
      },
    },
    async (request) => auth.passkeys.list(actorOf(request).userId),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'Delete one of your passkeys',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Deleted'), 404: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      await auth.passkeys.remove(actorOf(request).userId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/login/options',
    {
      schema: {
        tags,
        summary: 'Options for navigator.credentials.get: sign in with any passkey of this site',
        security: security.public,
        response: { 200: authenticationOptions, ...errors },
      },
    },
    async () => auth.passkeys.loginOptions(),
  );

  app.post(
    '/login/verify',
    {
      schema: {
        tags,
        summary: "Sign in with a passkey (startAuthentication's answer); answers as login does",
        security: security.public,
        body: passkeyLoginBody,
        response: { 200: sessionResponse, ...errors },
      },
    },
    async (request, reply) =>
      cookies.send(reply, await auth.passkeys.login(request.body, signInContext(request))),
  );
};
