import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/database.js';
import { BoundedCache } from '../../lib/bounded-cache.js';
import { lastUsedIsStale } from '../../lib/credential-keys.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { notFound, unauthenticated } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import { createUserRepo, type VerifiedUser } from './repo.js';
import type { SessionSummary, User } from './schemas.js';
import { createSessionRepo, type EndedSessions } from './session-repo.js';

export const LOGIN_JWT_ISSUER = 'reservation-service';
export const LOGIN_JWT_AUDIENCE = 'reservation-service-api';
const LOGIN_JWT_TTL_SECONDS = 15 * 60;
/** What a session keeps of the browser's User-Agent. */
const USER_AGENT_MAX = 500;

export interface IssuedSession {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: User;
  refreshToken: string;
  csrfToken: string;
}

/** Where a sign-in comes from: what the session list shows of it. */
export interface SignInContext {
  userAgent?: string | null | undefined;
}

/** A login JWT's person, with the session it belongs to. */
export type VerifiedLogin = VerifiedUser & { sessionId: number };

/**
 * Sessions: each sign-in starts one (an `auth_sessions` row); its login JWTs carry its id
 * (`sid`) and its refresh tokens rotate within one family tied to it. Ending a session
 * revokes its refresh tokens at once, and its JWTs at their next request: the guard's one
 * read a request (`findVerified`) joins the session and finds none once it is ended, on
 * every instance, as nothing about the session is cached.
 */
export function createSessions({ db, config }: { db: Db; config: Config }) {
  const users = createUserRepo(db.kysely);
  const jwtKey = new TextEncoder().encode(config.jwtSecret);
  // Clients reuse a login token for its 15 minutes; checking its HMAC once is enough.
  const verifiedTokens = new BoundedCache<string, { userId: number; sessionId: number }>(10_000);

  /** A refresh token in the family and a login JWT of the session. */
  async function issueTokens(
    user: User,
    sessionId: number,
    familyId: string,
    expiresAt: string,
  ): Promise<IssuedSession> {
    const refreshToken = randomToken();
    await createSessionRepo(db.kysely).insertRefreshToken({
      userId: user.id,
      authSessionId: sessionId,
      familyId,
      tokenHash: sha256(refreshToken),
      expiresAt,
      now: nowIso(),
    });
    const accessToken = await new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(user.id))
      .setIssuer(LOGIN_JWT_ISSUER)
      .setAudience(LOGIN_JWT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${LOGIN_JWT_TTL_SECONDS}s`)
      .sign(jwtKey);
    return {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: LOGIN_JWT_TTL_SECONDS,
      user,
      refreshToken,
      csrfToken: randomToken(),
    };
  }

  /**
   * Starts a session for a person who just proved who they are (password, passkey, second
   * factor): the session row, a refresh token of a new family, and a login JWT carrying the
   * session's id. Every way of signing in ends here.
   */
  async function startSession(user: User, context: SignInContext = {}): Promise<IssuedSession> {
    const now = nowIso();
    const expiresAt = isoAfterSeconds(config.loginRefreshTokenTtl);
    const sessionId = await createSessionRepo(db.kysely).insertSession({
      userId: user.id,
      userAgent: context.userAgent?.slice(0, USER_AGENT_MAX) || null,
      expiresAt,
      now,
    });
    return issueTokens(user, sessionId, randomUUID(), expiresAt);
  }

  /** Rotates the refresh token. A token already rotated away is a replay: the whole family and its session end. */
  async function refresh(refreshToken: string, context: SignInContext = {}): Promise<IssuedSession> {
    const sessions = createSessionRepo(db.kysely);
    const token = await sessions.findRefreshToken(sha256(refreshToken));
    const now = nowIso();
    if (!token) throw unauthenticated('Refresh token is not valid');
    const replayed = async () => {
      await sessions.revokeFamily(token.familyId, now);
      if (token.authSessionId !== null)
        await sessions.endSessions(token.userId, now, { kind: 'one', id: token.authSessionId });
      return unauthenticated('Refresh token was already used; sign in again');
    };
    if (token.revokedAt) throw await replayed();
    if (token.expiresAt <= now) throw unauthenticated('Refresh token has expired');
    if (!(await sessions.revokeRefreshToken(token.id, now))) throw await replayed();
    const user = await users.findById(token.userId);
    if (!user) throw unauthenticated('Refresh token is not valid');
    // A family from before sessions existed joins a session of its own now.
    if (token.authSessionId === null) return startSession(user, context);
    if (!(await sessions.findLiveSession(token.authSessionId, now)))
      throw unauthenticated('This session was ended; sign in again');
    const expiresAt = isoAfterSeconds(config.loginRefreshTokenTtl);
    await sessions.touchSession(token.authSessionId, now, expiresAt);
    return issueTokens(user, token.authSessionId, token.familyId, expiresAt);
  }

  /** Ends the session of a refresh token (sign-out). */
  async function logout(refreshToken: string | undefined): Promise<void> {
    if (!refreshToken) return;
    const sessions = createSessionRepo(db.kysely);
    const token = await sessions.findRefreshToken(sha256(refreshToken));
    if (!token) return;
    const now = nowIso();
    await sessions.revokeFamily(token.familyId, now);
    if (token.authSessionId !== null)
      await sessions.endSessions(token.userId, now, { kind: 'one', id: token.authSessionId });
  }

  /** The signature check of a login JWT: its user and session, or null. */
  async function verifyClaims(token: string): Promise<{ userId: number; sessionId: number } | null> {
    try {
      const { payload } = await jwtVerify(token, jwtKey, {
        issuer: LOGIN_JWT_ISSUER,
        audience: LOGIN_JWT_AUDIENCE,
        algorithms: ['HS256'],
        requiredClaims: ['sub', 'exp', 'sid'],
      });
      const claims = { userId: Number(payload.sub), sessionId: Number(payload.sid) };
      if (!Number.isSafeInteger(claims.userId) || !Number.isSafeInteger(claims.sessionId)) return null;
      verifiedTokens.set(token, claims, payload.exp! * 1000);
      return claims;
    } catch {
      return null;
    }
  }

  /**
   * Resolves a login JWT to its user (with their active organisation, for the tenant gate)
   * and session, or null when it does not verify, its session was ended or the user is gone.
   * Only the signature check is cached; the session and user are read every time, in one
   * statement. The session's last use is written at most once a minute.
   */
  async function verifyLoginToken(token: string): Promise<VerifiedLogin | null> {
    // A cache hit stays synchronous: this runs on every request.
    const claims = verifiedTokens.get(token) ?? (await verifyClaims(token));
    if (!claims) return null;
    const found = await users.findVerified(claims.sessionId, claims.userId);
    if (!found) return null;
    if (lastUsedIsStale(found.lastUsedAt))
      await createSessionRepo(db.kysely).touchSession(claims.sessionId, nowIso());
    const { person, activeTenant } = found.verified;
    return { person, activeTenant, sessionId: claims.sessionId };
  }

  return {
    startSession,
    refresh,
    logout,
    verifyLoginToken,

    /** The user's live sessions, newest first; `current` marks the one asking. */
    async list(userId: number, currentSessionId: number | null): Promise<SessionSummary[]> {
      const rows = await createSessionRepo(db.kysely).listLiveSessions(userId, nowIso());
      return rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
    },

    /** Ends one of the user's sessions (another user's: 404). */
    async revoke(userId: number, sessionId: number): Promise<void> {
      const sessions = createSessionRepo(db.kysely);
      if (!(await sessions.findSessionOf(userId, sessionId))) throw notFound('Session');
      await sessions.endSessions(userId, nowIso(), { kind: 'one', id: sessionId });
    },

    /** Ends sessions of a user (and their refresh tokens), in the caller's transaction when given. */
    async end(userId: number, which: EndedSessions, executor: Executor = db.kysely): Promise<void> {
      await createSessionRepo(executor).endSessions(userId, nowIso(), which);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
