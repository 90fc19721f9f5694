import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { issueKey, lastUsedIsStale } from '../../lib/credential-keys.js';
import { DECOY_PASSWORD_HASH, hashPassword, sha256, verifyPassword } from '../../lib/crypto.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { conflict, notFound, unauthenticated } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AccountMail } from '../mail/account-mail.js';
import { createEmailVerification } from './email-verification.js';
import { createLoginLimiter } from './limits.js';
import { createPasskeys } from './passkeys.js';
import { createPasswords } from './passwords.js';
import { createApiKeyRepo, createUserRepo, type VerifiedUser } from './repo.js';
import type { ApiKey, CreatedKey, User } from './schemas.js';
import { createSessions, type IssuedSession, type SignInContext } from './sessions.js';
import type { Plan } from './tables.js';
import { createTwoFactor, type TwoFactorChallenge } from './two-factor.js';

export { LOGIN_JWT_AUDIENCE, LOGIN_JWT_ISSUER } from './sessions.js';
export type { IssuedSession, SignInContext };

const USER_KEY_PREFIX = 'rs_uk_';

export type AuthService = ReturnType<typeof createAuthService>;

/** Runs inside the transaction that creates a user: both commit, or neither. */
export type UserCreatedHook = (trx: Executor, user: User) => Promise<void>;

export interface AuthServiceDeps {
  db: Db;
  config: Config;
  store: EphemeralStore;
  log?: FastifyBaseLogger;
  onUserCreated?: UserCreatedHook;
  /** Sends a mail about the person's own account (the mail module's `sendAccountMail`). */
  sendMail?: (mail: AccountMail) => void;
}

/**
 * Accounts: sign-up and sign-in (sessions.ts), proving an address (email-verification.ts),
 * passwords (passwords.ts) and API keys. This file wires them and is the module's surface.
 */
export function createAuthService({
  db,
  config,
  store,
  log,
  onUserCreated,
  sendMail = () => {},
}: AuthServiceDeps) {
  const users = createUserRepo(db.kysely);
  const apiKeys = createApiKeyRepo(db.kysely);
  const sessions = createSessions({ db, config });
  const enforceLoginLimit = createLoginLimiter(store, config.loginRateLimitMax);
  const background = new Set<Promise<void>>();
  const inBackground = (work: () => Promise<void>) => {
    const running = work().catch((error: unknown) =>
      log?.error({ err: error }, 'account work after the answer failed'),
    );
    background.add(running);
    void running.finally(() => background.delete(running));
  };
  const links = { db, frontendUrl: config.frontendUrl, store, sendMail };
  const passwords = createPasswords({ ...links, sessions, loginLimiter: enforceLoginLimit, inBackground });
  const verification = createEmailVerification({ ...links, confirmPassword: passwords.confirmPassword });
  const twoFactor = createTwoFactor({
    db,
    config,
    enforceLoginLimit,
    confirmPassword: passwords.confirmPassword,
    startSession: sessions.startSession,
  });
  const passkeys = createPasskeys({ db, config, startSession: sessions.startSession });

  async function createUser(
    input: { email: string; password: string; name: string },
    { emailVerified }: { emailVerified: boolean },
  ): Promise<User> {
    const passwordHash = await hashPassword(input.password);
    try {
      return await inTransaction(db.kysely, async (trx) => {
        const user = await createUserRepo(trx).insert({
          ...input,
          passwordHash,
          emailVerified,
          now: nowIso(),
        });
        await onUserCreated?.(trx, user);
        return user;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict('EMAIL_TAKEN', 'An account with this email already exists');
      throw error;
    }
  }

  return {
    /** Creates an account (its address unverified), mails the verification link, and signs in. */
    async register(
      input: { email: string; password: string; name: string },
      context: SignInContext = {},
    ): Promise<IssuedSession> {
      const user = await createUser(input, { emailVerified: false });
      await verification.mailVerification(user);
      return sessions.startSession(user, context);
    },

    async login(
      input: { email: string; password: string },
      ip: string,
      context: SignInContext = {},
    ): Promise<IssuedSession | TwoFactorChallenge> {
      await enforceLoginLimit(`login:ip:${ip}`);
      await enforceLoginLimit(`login:email:${input.email}`);
      const found = await users.findByEmail(input.email);
      // Verify against a decoy when the account is absent so both paths take the same time.
      const valid = await verifyPassword(input.password, found?.passwordHash ?? DECOY_PASSWORD_HASH);
      if (!found || !valid) throw unauthenticated('Email or password is incorrect');
      // With two-factor on, the password only opens the second step (POST /login/2fa).
      if (found.user.twoFactorEnabled) return twoFactor.challengeFor(found.user);
      return sessions.startSession(found.user, context);
    },

    /** Two-factor sign-in: set-up, turning it off, the second step of a login (two-factor.ts). */
    twoFactor,
    /** Passkeys: register, list, delete, sign in (passkeys.ts). */
    passkeys,

    /**
     * Starts a session for a person who just proved who they are; every way of signing in
     * (password, passkey, second factor) answers with it. See sessions.ts.
     */
    startSession: sessions.startSession,
    /** The brute-force limiter of sign-in secrets (keys `login:ip:<ip>`, `login:email:<address>`). */
    enforceLoginLimit,
    refresh: sessions.refresh,
    logout: sessions.logout,
    verifyLoginToken: sessions.verifyLoginToken,
    listSessions: sessions.list,
    revokeSession: sessions.revoke,
    /** Ends every session of the user but `keepSessionId`. */
    revokeOtherSessions: (userId: number, keepSessionId: number) =>
      sessions.end(userId, { kind: 'allBut', id: keepSessionId }),

    verifyEmail: verification.verify,
    resendVerification: verification.resend,
    requestEmailChange: verification.requestChange,
    forgotPassword: passwords.forgot,
    resetPassword: passwords.reset,
    changePassword: passwords.change,

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

    /** Read port: whether the user is a global admin (agents ask before granting beyond their presets). */
    isGlobalAdmin: (userId: number): Promise<boolean> => users.isGlobalAdmin(userId),

    /**
     * Read port: serialises one person's writes of another module's rows in `trx`: on
     * PostgreSQL their user row stays locked until `trx` ends; SQLite transactions are serial.
     */
    async lockUser(trx: Executor, userId: number): Promise<void> {
      if (db.dialect === 'postgres') await createUserRepo(trx).lockForUpdate(userId);
    },

    /** Operator command (CLI): creates a user whose address the operator vouches for (verified). */
    createUser: (input: { email: string; password: string; name: string }) =>
      createUser(input, { emailVerified: true }),

    async updateUserByEmail(email: string, changes: { plan?: Plan; isGlobalAdmin?: boolean }): Promise<User> {
      const found = await users.findByEmail(email);
      if (!found) throw notFound('User');
      const updated = await users.update(found.user.id, { ...changes, now: nowIso() });
      if (!updated) throw notFound('User');
      return updated;
    },

    /** Waits for work started after an answer (a reset link's write and mail). */
    async close(): Promise<void> {
      await Promise.all(background);
    },
  };
}
