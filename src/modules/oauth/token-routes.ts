import type { FastifyError, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { security } from '../../http/schemas.js';
import { refuseControlCharacters } from '../../http/validation.js';
import { asDomainError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../lib/errors.js';
import { invalidRequest, OAuthError } from './errors.js';
import { NO_STORE, tags } from './route-shared.js';
import { oauthErrorBody, tokenRequestBody, tokenResponse } from './schemas.js';

/** The token endpoint's parameters: strings only, each once, empty ones treated as omitted (RFC 6749 §3.2). */
function tokenParameters(body: unknown): Record<string, string> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest(
      'The request body must be form-encoded parameters (RFC 6749 §4.1.3) or a JSON object',
    );
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalidRequest(`${name} must be a string`);
    if (value !== '') params[name] = value;
  }
  return params;
}

function sendOAuthError(reply: FastifyReply, error: OAuthError) {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply
    .code(error.status)
    .headers(NO_STORE)
    .send({ error: error.error, error_description: error.description });
}

/** Everything that can fail on the token endpoint, as an RFC 6749 §5.2 body, never the envelope. */
function toOAuthError(error: FastifyError | Error): OAuthError {
  if (error instanceof OAuthError) return error;
  const known = asDomainError(error);
  if (known?.code === 'RATE_LIMITED') return new OAuthError('invalid_request', known.message, 429);
  // The database cannot be reached: 503 with Retry-After, as the envelope answers elsewhere.
  if (known?.code === 'UNAVAILABLE')
    return new OAuthError(
      'temporarily_unavailable',
      known.message,
      503,
      known.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS,
    );
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidRequest(
        'Content-Type must be application/x-www-form-urlencoded (RFC 6749 §4.1.3) or application/json',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest('The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidRequest('The request body is too large');
  }
  if (known && known.code !== 'INTERNAL') return invalidRequest(known.message);
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) return invalidRequest(error.message);
  return new OAuthError('server_error', 'The server could not complete the request', 500);
}

/**
 * POST /api/oauth/token in a scope of its own: it parses form-encoded bodies and
 * answers every failure, body and media-type errors included, in RFC 6749 §5.2 shape.
 */
export const tokenRoute: FastifyPluginAsyncZod = async (app) => {
  const { oauth } = app.services;
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const seen = new Set<string>();
      const params: Array<[string, string]> = [];
      for (const [name, value] of new URLSearchParams(body as string)) {
        if (seen.has(name)) {
          done(invalidRequest(`${name} is given more than once (RFC 6749 §3.2)`), undefined);
          return;
        }
        seen.add(name);
        params.push([name, value]);
      }
      done(null, Object.fromEntries(params));
    },
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const oauthError = toOAuthError(error);
    // An outage fails every request alike: one warning each, the cause without a stack.
    if (oauthError.error === 'temporarily_unavailable')
      request.log.warn({ cause: String(error.message) }, 'dependency unavailable');
    else if (oauthError.status >= 500) request.log.error({ err: error }, 'token request failed');
    return sendOAuthError(reply, oauthError);
  });

  app.post(
    '/token',
    {
      // The body is checked by the handler, so a malformed one is an RFC 6749 error, not the envelope.
      attachValidation: true,
      schema: {
        tags,
        summary: 'Exchange an authorization code (PKCE) or rotate a refresh token',
        description:
          'Form-encoded (`application/x-www-form-urlencoded`) or JSON. Public clients only: `client_id` ' +
          'in the body, no client authentication. Errors are RFC 6749 §5.2 bodies `{error, ' +
          'error_description}`: 400, or 401 for `invalid_client`. A reused code or a reused refresh ' +
          'token is `invalid_grant` and revokes the tokens issued from it. While the database cannot ' +
          'be reached: 503 `temporarily_unavailable` with Retry-After.',
        security: security.public,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: tokenRequestBody,
        response: { 200: tokenResponse, 400: oauthErrorBody, 401: oauthErrorBody, 503: oauthErrorBody },
      },
    },
    async (request, reply) => {
      // invalid_request (this scope's error handler); the service names any other fault itself.
      refuseControlCharacters(request);
      const params = tokenParameters(request.body);
      const tokens = await oauth.token(params, {
        clientAuthentication: request.headers.authorization !== undefined,
      });
      return reply.headers(NO_STORE).send(tokens);
    },
  );
};
