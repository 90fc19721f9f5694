import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { security } from '../../http/schemas.js';
import { refuseControlCharacters } from '../../http/validation.js';
import { DomainError, InputError } from '../../lib/errors.js';
import { errorPage, prefersJson } from './authorize-error-page.js';
import { NO_STORE, tags } from './route-shared.js';
import {
  authorizeQuery,
  consentBody,
  consentDetails,
  consentDetailsQuery,
  consentResult,
} from './schemas.js';

const errors = errorResponses(400, 401, 429);

/**
 * The service names the parameter or field it refuses (`client_id`); the envelope says
 * where it was, as a schema failure of that part does (`querystring.client_id`): the
 * authorization endpoint renders its own errors, and Fastify calls the query `querystring`.
 */
async function locatedIn<T>(part: 'querystring' | 'body', work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw error instanceof InputError ? error.placed(part, (path) => `${part}.${path}`) : error;
  }
}

/** The authorization endpoint, and the consent API the consent page calls for a signed-in user. */
export const authorizationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { oauth } = app.services;
  app.get(
    '/authorize',
    {
      // Public, and a URL client_id makes the server fetch a document: the tighter public limit.
      config: { rateLimit: { max: app.config.publicRateLimitMax, timeWindow: '1 minute' } },
      // The query is checked by the service, which names the parameter at fault.
      attachValidation: true,
      schema: {
        tags,
        summary: 'Authorization endpoint: 302 to the consent page',
        description:
          'Success: 302 to `<FRONTEND_URL>/oauth/consent` with this request’s query. Every request ' +
          'error (a missing, repeated or malformed parameter, code_challenge_method other than S256, ' +
          'an unsupported response_type, another resource, an unknown client or redirect URI) is 400 ' +
          'and never a redirect: an HTML page, or the `VALIDATION_FAILED` envelope when Accept ' +
          'prefers JSON. Only the consent decision sends the browser back to the client.',
        security: security.public,
        querystring: authorizeQuery,
      },
    },
    async (request, reply) => {
      const url = request.raw.url ?? '';
      const mark = url.indexOf('?');
      const rawQuery = mark < 0 ? '' : url.slice(mark + 1);
      reply.headers(NO_STORE);
      try {
        refuseControlCharacters(request);
        const { location } = await locatedIn(
          'querystring',
          oauth.authorize(request.query as Record<string, unknown>, rawQuery),
        );
        return reply.code(302).header('location', location).send();
      } catch (error) {
        if (
          error instanceof DomainError &&
          error.code === 'VALIDATION_FAILED' &&
          !prefersJson(request.headers.accept)
        )
          return reply
            .code(400)
            .type('text/html; charset=utf-8')
            .send(errorPage(error.details?.[0]?.message ?? error.message));
        throw error;
      }
    },
  );

  app.get(
    '/consent-details',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'The client asking for access and the permission groups you may grant it',
        security: security.loginSession,
        querystring: consentDetailsQuery,
        response: { 200: consentDetails, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .headers(NO_STORE)
        .send(await locatedIn('querystring', oauth.consentDetails(actorOf(request), request.query))),
  );

  app.post(
    '/consent',
    {
      onRequest: app.requireLoginSession,
      schema: {
        tags,
        summary: 'Approve or deny: answers where to send the browser (with code, or error=access_denied)',
        security: security.loginSession,
        body: consentBody,
        response: { 200: consentResult, ...errors },
      },
    },
    async (request, reply) =>
      reply.headers(NO_STORE).send(await locatedIn('body', oauth.consent(actorOf(request), request.body))),
  );
};
