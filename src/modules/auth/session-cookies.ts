import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { safeEqual } from '../../lib/crypto.js';
import { DomainError } from '../../lib/errors.js';
import type { IssuedSession, SignInContext } from './sessions.js';

const REFRESH_COOKIE = 'refresh_token';
const CSRF_COOKIE = 'csrf_token';
const CSRF_HEADER = 'x-csrf-token';

/**
 * How a session reaches the browser: the refresh token in an httpOnly cookie scoped to
 * /api/auth, a CSRF double-submit cookie, and the access token in the body. Every route that
 * signs someone in (password, passkey, second factor) answers through `send`.
 */
export function sessionCookies(config: Config) {
  const secure = config.publicUrl.startsWith('https://');
  const maxAge = config.loginRefreshTokenTtl;
  return {
    /** Sets the cookies; answers the body (access token and user, never the refresh token). */
    send(reply: FastifyReply, session: IssuedSession) {
      reply.setCookie(REFRESH_COOKIE, session.refreshToken, {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: '/api/auth',
        maxAge,
      });
      reply.setCookie(CSRF_COOKIE, session.csrfToken, {
        httpOnly: false,
        sameSite: 'lax',
        secure,
        path: '/',
        maxAge,
      });
      const { refreshToken: _refresh, csrfToken: _csrf, ...body } = session;
      return body;
    },

    clear(reply: FastifyReply) {
      reply.clearCookie(REFRESH_COOKIE, { path: '/api/auth' });
      reply.clearCookie(CSRF_COOKIE, { path: '/' });
    },

    refreshTokenOf(request: FastifyRequest): string | undefined {
      return request.cookies[REFRESH_COOKIE];
    },

    /** Double-submit check: a cross-site page can send the cookie but cannot read it into the header. */
    requireCsrf(request: FastifyRequest) {
      const cookie = request.cookies[CSRF_COOKIE];
      const header = request.headers[CSRF_HEADER];
      if (!cookie || typeof header !== 'string' || !safeEqual(cookie, header)) {
        throw new DomainError('CSRF_FAILED', `Header X-CSRF-Token must match the ${CSRF_COOKIE} cookie`);
      }
    },
  };
}

/** What a session records of where a sign-in came from. */
export function signInContext(request: FastifyRequest): SignInContext {
  return { userAgent: request.headers['user-agent'] ?? null };
}
