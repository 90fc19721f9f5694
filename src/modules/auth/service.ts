import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Plan } from '../../db/tables/users.js';
import { BoundedCache } from '../../lib/bounded-cache.js';
import { issueKey, lastUsedIsStale } from '../../lib/credential-keys.js';
import { DECOY_PASSWORD_HASH, hashPassword, randomToken, sha256, verifyPassword } from '../../lib/crypto.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { conflict, DomainError, notFound, unauthenticated } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import { createApiKeyRepo, createSessionRepo, createUserRepo, type VerifiedUser } from './repo.js';
import type { ApiKey, CreatedKey, User } from './schemas.js';

export const LOGIN_JWT_ISSUER = 'reservation-service';
export const LOGIN_JWT_AUDIENCE = 'reservation-service-api';
const LOGIN_JWT_TTL_SECONDS = 15 * 60;
const LOGIN_WINDOW_SECONDS = 15 * 60;
const USER_KEY_PREFIX = 'rs_uk_';

export interface IssuedSession {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: User;
  refreshToken: string;
  csrfToken: string;
}

export type AuthService = ReturnType<typeof createAuthService>;

/** Runs inside the transaction that creates a user: both commit, or neither. */
export type UserCreatedHook = (trx: Executor, user: User) => Promise<void>;

export function createAuthService({
  db,
  config,
  store,
  onUserCreated,
}: {
  db: Db;
  config: Config;
  store: EphemeralStore;
  onUserCreated?: UserCreatedHook;
}) {
  const users = createUserRepo(db.kysely);
  const apiKeys = createApiKeyRepo(db.kysely);
  const jwtKey = new TextEncoder().encode(config.jwtSecret);
  // Clients reuse a login token for its 15 minutes; checking its HMAC once is enough.
  const verifiedTokens = new BoundedCache<string, number>(10_000);

  async function issueSession(user: User, familyId: string = randomUUID()): Promise<IssuedSession> {
    const now = nowIso();
    const refreshToken = randomToken();
    await createSessionRepo(db.kysely).insert({
      userId: user.id,
      familyId,
      tokenHash: sha256(refreshToken),
      expiresAt: isoAfterSeconds(config.loginRefreshTokenTtl),
      now,
    });
    const accessToken = await new SignJWT({})
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

  async function createUser(input: { email: string; password: string; name: string }): Promise<User> {
    const passwordHash = await hashPassword(input.password);
    try {
      return await inTransaction(db.kysely, async (trx) => {
        const user = await createUserRepo(trx).insert({ ...input, passwordHash, now: nowIso() });
        await onUserCreated?.(trx, user);
        return user;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict('EMAIL_TAKEN', 'An account with this email already exists');
      throw error;
    }
  }

  async function enforceLoginLimit(key: string) {
    const { count, resetInSeconds } = await store.hit(key, LOGIN_WINDOW_SECONDS);
    if (count > config.loginRateLimitMax) {
      throw new DomainError(
        'RATE_LIMITED',
        'Too many login attempts; try again later',
        undefined,
        resetInSeconds,
      );
    }
  }

  return {
    async register(input: { email: string; password: string; name: string }): Promise<IssuedSession> {
      return issueSession(await createUser(input));
    },

    async login(input: { email: string; password: string }, ip: string): Promise<IssuedSession> {
      await enforceLoginLimit(`login:ip:${ip}`);
      await enforceLoginLimit(`login:email:${input.email}`);
      const found = await users.findByEmail(input.email);
      // Verify against a decoy when the account is absent so both paths take the same time.
      const valid = await verifyPassword(input.password, found?.passwordHash ?? DECOY_PASSWORD_HASH);
      if (!found || !valid) throw unauthenticated('Email or password is incorrect');
      return issueSession(found.user);
    },

    /** Rotates the refresh token. A token already rotated away is a replay: the whole family dies. */
    async refresh(refreshToken: string): Promise<IssuedSession> {
      const sessions = createSessionRepo(db.kysely);
      const session = await sessions.findByTokenHash(sha256(refreshToken));
      const now = nowIso();
      if (!session) throw unauthenticated('Refresh token is not valid');
      if (session.revokedAt) {
        await sessions.revokeFamily(session.familyId, now);
        throw unauthenticated('Refresh token was already used; sign in again');
      }
      if (session.expiresAt <= now) throw unauthenticated('Refresh token has expired');
      if (!(await sessions.revoke(session.id, now))) {
        await sessions.revokeFamily(session.familyId, now);
        throw unauthenticated('Refresh token was already used; sign in again');
      }
      const user = await users.findById(session.userId);
      if (!user) throw unauthenticated('Refresh token is not valid');
      return issueSession(user, session.familyId);
    },

    async logout(refreshToken: string | undefined): Promise<void> {
      if (!refreshToken) return;
      const sessions = createSessionRepo(db.kysely);
      const session = await sessions.findByTokenHash(sha256(refreshToken));
      if (session) await sessions.revokeFamily(session.familyId, nowIso());
    },

    /**
     * Resolves a login JWT to its user (with their active organisation, for the tenant gate),
     * or null when it does not verify or the user is gone. Only the signature check is
     * cached; the user is read every time.
     */
    async verifyLoginToken(token: string): Promise<VerifiedUser | null> {
      let userId = verifiedTokens.get(token);
      if (userId === undefined) {
        try {
          const { payload } = await jwtVerify(token, jwtKey, {
            issuer: LOGIN_JWT_ISSUER,
            audience: LOGIN_JWT_AUDIENCE,
            algorithms: ['HS256'],
            requiredClaims: ['sub', 'exp'],
          });
          userId = Number(payload.sub);
          if (!Number.isSafeInteger(userId)) return null;
          verifiedTokens.set(token, userId, payload.exp! * 1000);
        } catch {
          return null;
        }
      }
      return (await users.findVerified(userId)) ?? null;
    },

    async verifyApiKey(key: string): Promise<VerifiedUser | null> {
      if (!key.startsWith(USER_KEY_PREFIX)) return null;
      const found = await apiKeys.findLiveByHash(sha256(key));
      if (!found) return null;
      if (lastUsedIsStale(found.lastUsedAt)) await apiKeys.touch(found.keyId, nowIso());
      return found.verified;
    },

    async me(userId: number): Promise<User> {
      const user = await users.findById(userId);
      if (!user) throw notFound('User');
      return user;
    },

    async createApiKey(userId: number, label: string): Promise<CreatedKey> {
      const { key, prefix, keyHash } = issueKey(USER_KEY_PREFIX);
      const row = await apiKeys.insert({ userId, label, prefix, keyHash, now: nowIso() });
      return { ...row, key };
    },

    listApiKeys(userId: number): Promise<ApiKey[]> {
      return apiKeys.listForUser(userId);
    },

    async revokeApiKey(userId: number, id: number): Promise<ApiKey> {
      const key = await apiKeys.revoke(userId, id, nowIso());
      if (!key) throw notFound('API key');
      return key;
    },

    /** Operator commands (CLI): create a user, set plan or admin flag by email. */
    createUser,

    async updateUserByEmail(email: string, changes: { plan?: Plan; isGlobalAdmin?: boolean }): Promise<User> {
      const found = await users.findByEmail(email);
      if (!found) throw notFound('User');
      const updated = await users.update(found.user.id, { ...changes, now: nowIso() });
      if (!updated) throw notFound('User');
      return updated;
    },
  };
}
