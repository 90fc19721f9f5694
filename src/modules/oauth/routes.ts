import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { security } from '../../http/schemas.js';
import { refuseControlCharacters } from '../../http/validation.js';
import {
  asDomainError,
  DomainError,
  InputError,
  notFound,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from '../../lib/errors.js';
import { invalidRequest, OAuthError } from './errors.js';
import {
  authorizationServerMetadata,
  authorizeQuery,
  consentBody,
  consentDetails,
  consentDetailsQuery,
  consentResult,
  oauthErrorBody,
  protectedResourceMetadata,
  registerClientBody,
  registeredClient,
  tokenRequestBody,
  tokenResponse,
} from './schemas.js';

/** The most a registration body may be (DECISIONS.md, OAuth hardening). */
const REGISTRATION_BODY_MAX_BYTES = 16 * 1024;

const tags = ['oauth'];
const errors = errorResponses(400, 401, 429);
/** Discovery documents change only with a deployment; any origin may read them. */
function sendDiscovery(reply: FastifyReply, document: object) {
  reply.header('cache-control', 'public, max-age=300');
  // An allow-listed origin already got its CORS headers (with credentials); any other may read it too.
  if (!reply.hasHeader('access-control-allow-origin')) reply.header('access-control-allow-origin', '*');
  return reply.send(document);
}
/** Credentials and authorization responses are never cached (RFC 6749 §5.1, RFC 7591 §3.2.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The page a browser gets for a refused authorization request: nothing is redirected. */
function errorPage(message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Authorization request refused</title></head>
<body>
<main>
<h1>Authorization request refused</h1>
<p>${escapeHtml(message)}</p>
<p>The application that sent you here made a request this service cannot accept, so you are not sent back to it. Close this page and contact the application's developer.</p>
</main>
</body>
</html>
`;
}

// The quality and specificity (2 exact, 1 a `type/*` range, 0 the any range) Accept gives one media type.
function acceptance(accept: string, type: string): { q: number; specificity: number } {
  const [major] = type.split('/');
  let best = { q: 0, specificity: -1 };
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParameter = parameters.find((parameter) => parameter.startsWith('q='));
    const q = qParameter ? Number(qParameter.slice(2)) : 1;
    best = { q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0, specificity };
  }
  return best;
}

// Whether the caller's Accept header prefers JSON to HTML: a higher quality, or the same
// one named more exactly (`application/json` beside the any range is a JSON client; a
// browser names text/html). No Accept, or a tie, is a browser.
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const json = acceptance(accept, 'application/json');
  const html = acceptance(accept, 'text/html');
  if (json.q === 0) return false;
  return json.q > html.q || (json.q === html.q && json.specificity > html.specificity);
}

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
const tokenRoute: FastifyPluginAsyncZod = async (app) => {
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
