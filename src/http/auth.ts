import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { User } from '../modules/auth/schemas.js';
import type { AuthMethod, AuthService, Principal } from '../modules/auth/service.js';
import { unauthenticated } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** Accepts a login JWT (Bearer) or a user API key (`x-api-key`, `Authorization: ApiKey`). */
    requireUser: onRequestAsyncHookHandler;
    /** Accepts only the login-session JWT: routes a person confirms in a browser. */
    requireLoginSession: onRequestAsyncHookHandler;
  }
}

type Credential = { method: AuthMethod; value: string };

function readCredential(request: FastifyRequest): Credential | null {
  const apiKeyHeader = request.headers['x-api-key'];
  if (typeof apiKeyHeader === 'string' && apiKeyHeader) return { method: 'api_key', value: apiKeyHeader };
  const authorization = request.headers.authorization;
  if (!authorization) return null;
  const space = authorization.indexOf(' ');
  if (space < 0) return null;
  const scheme = authorization.slice(0, space).toLowerCase();
  const value = authorization.slice(space + 1).trim();
  if (!value) return null;
  if (scheme === 'bearer') return { method: 'jwt', value };
  if (scheme === 'apikey') return { method: 'api_key', value };
  return null;
}

/** The authenticated user of a request that passed `requireUser` or `requireLoginSession`. */
export function currentUser(request: FastifyRequest): User {
  if (!request.principal) throw unauthenticated();
  return request.principal.user;
}

export const authGuards = fp<{ auth: AuthService }>(
  async (app: FastifyInstance, { auth }) => {
    app.decorateRequest('principal', null);

    async function authenticate(request: FastifyRequest, allowed: ReadonlySet<AuthMethod>) {
      const credential = readCredential(request);
      if (!credential || !allowed.has(credential.method)) throw unauthenticated();
      const user =
        credential.method === 'jwt'
          ? await auth.verifyAccessToken(credential.value)
          : await auth.verifyApiKey(credential.value);
      if (!user) throw unauthenticated('Credential is invalid, expired or revoked');
      request.principal = { user, method: credential.method };
    }

    const userMethods = new Set<AuthMethod>(['jwt', 'api_key']);
    const sessionMethods = new Set<AuthMethod>(['jwt']);
    app.decorate('requireUser', (request: FastifyRequest) => authenticate(request, userMethods));
    app.decorate('requireLoginSession', (request: FastifyRequest) => authenticate(request, sessionMethods));
  },
  { name: 'auth-guards' },
);
