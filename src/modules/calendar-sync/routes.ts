import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { security } from '../../http/schemas.js';
import { validationFailed } from '../../lib/errors.js';
import {
  authUrlResponse,
  graphNotifications,
  messageResponse,
  oauthCallbackQuery,
  providerParam,
  statusResponse,
  syncCalendarsBody,
} from './schemas.js';
import type { BrowserBinding } from './service.js';

const tags = ['calendar sync'];
/** Binds a connect to the browser that started it; sent back only to the provider's callback. */
const BINDING_COOKIE = 'calendar_sync_binding';

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/** External calendar sync, under /api/calendar-sync. */
export const calendarSyncRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calendarSync } = app.services;
  const secureCookies = app.config.publicUrl.startsWith('https://');

  /** httpOnly and SameSite=Lax: the provider's redirect back is a top-level GET, which carries it. */
  function keepBinding(reply: FastifyReply, binding: BrowserBinding) {
    if (!binding.value)
      reply.clearCookie(BINDING_COOKIE, { path: binding.callbackPath, httpOnly: true, sameSite: 'lax' });
    else
      reply.setCookie(BINDING_COOKIE, binding.value, {
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies,
        path: binding.callbackPath,
        maxAge: binding.maxAgeSeconds,
      });
  }

  const errors = {
    ...errorResponses(400, 401, 404, 409),
    502: errorEnvelope.describe('PROVIDER_ERROR: the calendar provider failed or is not configured'),
    504: errorEnvelope.describe('PROVIDER_TIMEOUT: the calendar provider did not answer in time'),
  };

  app.get(
    '/status',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "Each provider's connection, its calendars and the calendars mapped from it",
        security: security.user,
        response: { 200: statusResponse, ...errorResponses(401) },
      },
    },
    async (request) => calendarSync.status(actorOf(request)),
  );

  app.get(
    '/auth/:provider',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "The provider's consent URL (single-use state for 10 minutes, PKCE)",
        description:
          'Also sets the httpOnly cookie `calendar_sync_binding` (SameSite=Lax, path of the callback): ' +
          'only the browser holding it completes the connect, so open `authUrl` in the browser that made ' +
          'this call. Other clients send the person to `FRONTEND_URL/calendar-sync?connect=<provider>`, ' +
          'which starts the connect in their browser.',
        security: security.user,
        params: providerParam,
        response: { 200: authUrlResponse, ...errors },
      },
    },
    async (request, reply) => {
      const { authUrl, binding } = await calendarSync.authUrl(
        actorOf(request),
        request.params.provider,
        request.cookies[BINDING_COOKIE],
      );
      keepBinding(reply, binding);
      reply.header('cache-control', 'no-store');
      return { authUrl };
    },
  );

  app.get(
    '/callback/:provider',
    {
      // Every failure, bad input included, is a redirect to the landing page, never a 400.
      attachValidation: true,
      schema: {
        tags,
        summary: 'OAuth redirect target of the providers (public); redirects to FRONTEND_URL/calendar-sync',
        description:
          'Redirects with `success=connected&provider=<p>`, or `error=<code>&message=<text>` ' +
          '(invalid_callback, access_denied, provider_error, missing_code, invalid_state, browser_mismatch, ' +
          'token_exchange_failed, provider_not_configured). The user comes from the state the connect call ' +
          'issued; only the browser holding the cookie that call set connects (otherwise browser_mismatch).',
        security: security.public,
        params: providerParam,
        querystring: oauthCallbackQuery,
      },
    },
    async (request, reply) => {
      const provider = String((request.params as { provider?: unknown }).provider ?? '');
      const outcome = await calendarSync.callback(
        provider,
        request.validationError ? null : request.query,
        request.cookies[BINDING_COOKIE],
      );
      if (outcome.binding) keepBinding(reply, outcome.binding);
      // The URL carried a code and a state: keep the landing page's address out of referrers and caches.
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return reply.redirect(outcome.location, 302);
    },
  );

  app.post(
    '/sync',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Map external calendars onto local calendars (created, or updated when mapped before)',
        security: security.user,
        body: syncCalendarsBody,
        response: { 200: messageResponse, ...errors },
      },
    },
    async (request) => calendarSync.mapCalendars(actorOf(request), request.body),
  );

  app.post(
    '/disconnect',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Disconnect every provider (local calendars and events stay, no longer synced)',
        security: security.user,
        response: { 200: messageResponse, ...errorResponses(401) },
      },
    },
    async (request) => calendarSync.disconnect(actorOf(request)),
  );

  app.post(
    '/disconnect/:provider',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Disconnect one provider (tokens deleted and revoked where the provider allows)',
        security: security.user,
        params: providerParam,
        response: { 200: messageResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => calendarSync.disconnect(actorOf(request), request.params.provider),
  );

  app.post(
    '/force',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Queue a sync of every mapped calendar now; answers once queued',
        security: security.user,
        response: { 200: messageResponse, ...errorResponses(401) },
      },
    },
    async (request) => calendarSync.force(actorOf(request)),
  );

  app.post(
    '/webhooks/calendar_provider_a',
    {
      schema: {
        tags,
        summary:
          'Push notifications of calendar_provider_a channels (public; checked by channel id and token)',
        security: security.public,
        response: { 200: z.object({ ok: z.literal(true) }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const accepted = await calendarSync.notifyA({
        channelId: header(request.headers['x-goog-channel-id']),
        token: header(request.headers['x-goog-channel-token']),
        resourceId: header(request.headers['x-goog-resource-id']),
        resourceState: header(request.headers['x-goog-resource-state']),
      });
      if (!accepted) return reply.callNotFound();
      return { ok: true as const };
    },
  );

  app.post(
    '/webhooks/calendar_provider_b',
    {
      schema: {
        tags,
        summary:
          'Change notifications of calendar_provider_b subscriptions (public): answers the validationToken ' +
          'handshake as text/plain; notifications are checked by subscription id and clientState',
        security: security.public,
        querystring: z.object({ validationToken: z.string().min(1).max(4096).optional() }),
        // Checked by the handler (the handshake has an empty text body); declared so the one
        // rule for text (http/validation.ts) refuses control characters before any lookup.
        body: z.unknown().describe('A change notification batch `{value: [...]}`; empty for the handshake'),
      },
    },
    async (request, reply) => {
      const token = request.query.validationToken;
      if (token !== undefined) return reply.code(200).type('text/plain; charset=utf-8').send(token);
      const parsed = graphNotifications.safeParse(request.body);
      if (!parsed.success) throw validationFailed('Not a change notification batch');
      if (!(await calendarSync.notifyB(parsed.data))) return reply.callNotFound();
      return reply.code(202).send();
    },
  );
};
