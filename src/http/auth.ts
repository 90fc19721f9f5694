import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor } from '../lib/actor.js';
import { unauthenticated } from '../lib/errors.js';
import { rememberActiveTenant } from '../tenancy/active-tenant.js';
import type { Tenant } from '../tenancy/gate.js';

/**
 * The person a credential belongs to, as the verifier read them while checking it.
 * The auth module widens it (declaration merging) to its user record.
 */
export interface AuthenticatedPerson {
  id: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
    /** Who `actor.userId` is, read once, by the guard, in this request. */
    person: AuthenticatedPerson | null;
    /** The sign-in session of a login JWT (null for API keys). */
    sessionId: number | null;
  }
  interface FastifyInstance {
    /** Accepts a login JWT (Bearer) or a user API key (`x-api-key`, `Authorization: ApiKey`). */
    requireUser: onRequestAsyncHookHandler;
    /** Accepts only the login-session JWT: routes a person confirms in a browser. */
    requireLoginSession: onRequestAsyncHookHandler;
  }
}

/**
 * How the guard turns a person's credential into that person, read from the
 * database (null when it does not verify or the person is gone). The auth module
 * implements it; this file knows no domain.
 */
export interface PersonCredentials {
  verifyLoginToken(token: string): Promise<VerifiedPerson | null>;
  verifyApiKey(key: string): Promise<VerifiedPerson | null>;
}

/** A verified credential's person, and their active organisation read in the same statement. */
export interface VerifiedPerson {
  person: AuthenticatedPerson;
  /** Null when they have none (or it is archived, or they left it). */
  activeTenant: Tenant | null;
  /** The sign-in session a login JWT belongs to. */
  sessionId?: number;
}

type Credential = { via: 'jwt' | 'api_key'; value: string };

function readCredential(request: FastifyRequest): Credential | null {
  const apiKeyHeader = request.headers['x-api-key'];
  if (typeof apiKeyHeader === 'string' && apiKeyHeader) return { via: 'api_key', value: apiKeyHeader };
  const authorization = request.headers.authorization;
  if (!authorization) return null;
  const space = authorization.indexOf(' ');
  if (space < 0) return null;
  const scheme = authorization.slice(0, space).toLowerCase();
  const value = authorization.slice(space + 1).trim();
  if (!value) return null;
  if (scheme === 'bearer') return { via: 'jwt', value };
  if (scheme === 'apikey') return { via: 'api_key', value };
  return null;
}

/** The actor of a request that passed `requireUser` or `requireLoginSession`. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthenticated();
  return request.actor;
}

/** The person of a request that passed `requireUser` or `requireLoginSession`, as the guard read them. */
export function personOf(request: FastifyRequest): AuthenticatedPerson {
  if (!request.person) throw unauthenticated();
  return request.person;
}

export const authGuards = fp<{ credentials: PersonCredentials }>(
  async (app: FastifyInstance, { credentials }) => {
    app.decorateRequest('actor', null);
    app.decorateRequest('person', null);
    app.decorateRequest('sessionId', null);

    async function authenticate(request: FastifyRequest, loginSessionOnly: boolean) {
      const credential = readCredential(request);
      if (!credential || (loginSessionOnly && credential.via !== 'jwt')) throw unauthenticated();
      const verified =
        credential.via === 'jwt'
          ? await credentials.verifyLoginToken(credential.value)
          : await credentials.verifyApiKey(credential.value);
      if (verified === null) throw unauthenticated('Credential is invalid, expired or revoked');
      const { person, activeTenant, sessionId } = verified;
      request.actor = { userId: person.id, via: credential.via };
      request.person = person;
      request.sessionId = sessionId ?? null;
      rememberActiveTenant(request.actor, activeTenant);
    }

    app.decorate('requireUser', (request: FastifyRequest) => authenticate(request, false));
    app.decorate('requireLoginSession', (request: FastifyRequest) => authenticate(request, true));
  },
  { name: 'auth-guards' },
);
