import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { personOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { unauthenticated } from '../../lib/errors.js';
import {
  accepted,
  changeEmailBody,
  changePasswordBody,
  emailVerified,
  forgotPasswordBody,
  passwordChanged,
  resetPasswordBody,
  sessionSummary,
  verifyEmailBody,
} from './schemas.js';

const tags = ['auth'];

/** The session of a request that passed `requireLoginSession`. */
function sessionOf(request: FastifyRequest): number {
  if (request.sessionId === null) throw unauthenticated();
  return request.sessionId;
}

/**
 * The account's own security (DECISIONS.md "Accounts"): its sessions, proving its address,
 * and its password. Routes that change the account take only a login JWT (a person in a
 * browser), never an API key.
 */
export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth } = app.services;
  const signedIn = { onRequest: app.requireLoginSession };
  const errors = errorResponses(400, 401, 403, 429);
  const noContent = (what: string) => z.null().describe(what);

  app.get(
    '/sessions',
    {
      ...signedIn,
      schema: {
        tags,
        summary: 'Your signed-in sessions, newest first',
        security: security.user,
        response: { 200: z.array(sessionSummary), ...errors },
      },
    },
    async (request) => auth.listSessions(personOf(request).id, sessionOf(request)),
  );

  app.delete(
    '/sessions/:id',
    {
      ...signedIn,
      schema: {
        tags,
        summary: 'End one of your sessions: its tokens stop working at their next use',
        security: security.user,
        params: idParam,
        response: { 204: noContent('Ended'), 404: errorEnvelope, ...errors },
      },
      config: { serviceInput: 'params' },
    },
    async (request, reply) => {
      await auth.revokeSession(personOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/sessions/revoke-others',
    {
      ...signedIn,
      schema: {
        tags,
        summary: 'End every session of yours but this one',
        security: security.user,
        response: { 204: noContent('Ended'), ...errors },
      },
    },
    async (request, reply) => {
      await auth.revokeOtherSessions(personOf(request).id, sessionOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/verify-email',
    {
      schema: {
        tags,
        summary: 'Prove an address with the token of a mailed link (sign-up or change of address)',
        description:
          'An unknown or altered token: 400; one used already, replaced by a newer link or older than ' +
          '24 hours: 410 LINK_EXPIRED; a new address another account took meanwhile: 409 EMAIL_TAKEN.',
        security: security.public,
        body: verifyEmailBody,
        response: { 200: emailVerified, 409: errorEnvelope, 410: errorEnvelope, ...errors },
      },
    },
    async (request) => {
      await auth.verifyEmail(request.body.token);
      return { emailVerified: true as const };
    },
  );

  app.post(
    '/verify-email/resend',
    {
      ...signedIn,
      schema: {
        tags,
        summary: 'Mail a new verification link to your address (at most 5 an hour)',
        security: security.user,
        response: { 202: accepted, ...errors },
      },
    },
    async (request, reply) => {
      await auth.resendVerification(personOf(request));
      return reply.code(202).send({ accepted: true });
    },
  );

  app.post(
    '/password/forgot',
    {
      schema: {
        tags,
        summary: 'Mail a password reset link to an account with this address',
        description:
          'Answers 202 whether or not an account has the address. The link works once, for 30 minutes; ' +
          'only the newest works. 5 an hour per address and per IP.',
        security: security.public,
        body: forgotPasswordBody,
        response: { 202: accepted, ...errors },
      },
    },
    async (request, reply) => {
      await auth.forgotPassword(request.body.email, request.ip);
      return reply.code(202).send({ accepted: true });
    },
  );

  app.post(
    '/password/reset',
    {
      schema: {
        tags,
        summary: 'Choose a new password with a mailed reset token; ends every session',
        description:
          'An unknown or altered token: 400; one used already, replaced by a newer link or older than ' +
          '30 minutes: 410 LINK_EXPIRED. 5 an hour per IP and per address.',
        security: security.public,
        body: resetPasswordBody,
        response: { 200: passwordChanged, 410: errorEnvelope, ...errors },
      },
    },
    async (request) => {
      await auth.resetPassword(request.body.token, request.body.password, request.ip);
      return { passwordChanged: true as const };
    },
  );

  app.post(
    '/password',
    {
      ...signedIn,
      schema: {
        tags,
        summary: 'Change your password; your other sessions end',
        security: security.user,
        body: changePasswordBody,
        response: { 200: passwordChanged, ...errors },
      },
    },
    async (request) => {
      await auth.changePassword(personOf(request), sessionOf(request), request.body);
      return { passwordChanged: true as const };
    },
  );

  app.post(
    '/email',
    {
      ...signedIn,
      schema: {
        tags,
        summary: 'Change your address: mails a link to the new one and a notice to the current one',
        description: 'The address changes when the link is used (POST /api/auth/verify-email).',
        security: security.user,
        body: changeEmailBody,
        response: { 202: accepted, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      await auth.requestEmailChange(personOf(request), request.body);
      return reply.code(202).send({ accepted: true });
    },
  );
};
