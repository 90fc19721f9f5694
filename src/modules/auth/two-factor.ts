import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import { decryptSecret, encryptSecret, randomToken, sha256 } from '../../lib/crypto.js';
import { conflict, DomainError } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import { createUserRepo } from './repo.js';
import type { User } from './schemas.js';
import type { IssuedSession, SignInContext } from './sessions.js';
import { createTwoFactorRepo } from './two-factor-repo.js';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps. */
const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** One step of clock drift either way. */
const TOTP_WINDOW = 1;
const CHALLENGE_TTL_SECONDS = 5 * 60;
const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 digits: no i, l, o or u to misread. 10 of them carry 50 bits. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export interface TwoFactorChallenge {
  twoFactorRequired: true;
  challenge: string;
}

/** What starts a session once the second step passed (the auth service's). */
export type StartSession = (user: User, context: SignInContext) => Promise<IssuedSession>;

/** The second step's proof: a code of the authenticator app, or one recovery code. */
export type SecondFactor = { code: string } | { recoveryCode: string };

export type TwoFactor = ReturnType<typeof createTwoFactor>;

const invalidCode = () => new DomainError('TWO_FACTOR_INVALID', 'The code is not valid');

/** "ab12c-de34f": 10 random characters of RECOVERY_ALPHABET, in two groups. */
function newRecoveryCode(): string {
  const chars = [...randomBytes(10)].map((byte) => RECOVERY_ALPHABET[byte % 32]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A recovery code as typed (any case, spaces or hyphens) in the form its hash was made of. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/** An authenticator app's code as typed ("123 456") in its six digits; null when it is not one. */
export function totpDigits(code: string): string | null {
  const digits = code.replace(/\s/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * Two-factor sign-in with TOTP (issue 48): set-up, recovery codes, the second step of a
 * password login, and turning it off. Secrets are sealed with ENCRYPTION_KEY and bound to
 * their user; codes and challenges are kept only as hashes.
 */
export function createTwoFactor({
  db,
  config,
  enforceLoginLimit,
  confirmPassword,
  startSession,
}: {
  db: Db;
  config: Config;
  /** The login brute-force limiter: codes count as passwords do, under the same keys. */
  enforceLoginLimit: (key: string) => Promise<void>;
  /** 400 on `field` unless `password` is the person's (counted by the limiter per email). */
  confirmPassword: (user: User, password: string, field: string) => Promise<void>;
  startSession: StartSession;
}) {
  const issuer = new URL(config.frontendUrl).hostname;
  const sealContext = (userId: number) => `two-factor:${userId}`;
  const seal = (userId: number, secret: string) =>
    encryptSecret(config.encryptionKey, secret, sealContext(userId));
  const unseal = (userId: number, sealed: string) =>
    decryptSecret(config.encryptionKey, sealed, sealContext(userId));

  const totpOf = (base32: string, label = '') =>
    new TOTP({
      issuer,
      label,
      secret: Secret.fromBase32(base32),
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });

  /** The time-step the code belongs to, within one step of now; null when it fits none. */
  function stepOf(base32: string, code: string): number | null {
    const digits = totpDigits(code);
    if (!digits) return null;
    const totp = totpOf(base32);
    const timestamp = Date.now();
    const delta = totp.validate({ token: digits, timestamp, window: TOTP_WINDOW });
    return delta === null ? null : totp.counter({ timestamp }) + delta;
  }

  /** Accepts a code of the secret in use once: a code whose step (or a later one) was used is refused. */
  async function acceptCode(userId: number, code: string): Promise<boolean> {
    const repo = createTwoFactorRepo(db.kysely);
    const secrets = await repo.findSecrets(userId);
    if (!secrets?.secretSealed) return false;
    const step = stepOf(unseal(userId, secrets.secretSealed), code);
    return step !== null && repo.claimStep(userId, step, nowIso());
  }

  /** A code of the app, or else (anything that is not six digits) one unused recovery code. */
  async function acceptSecondFactor(userId: number, proof: SecondFactor): Promise<boolean> {
    if ('code' in proof && totpDigits(proof.code)) return acceptCode(userId, proof.code);
    const recoveryCode = 'code' in proof ? proof.code : proof.recoveryCode;
    return createTwoFactorRepo(db.kysely).claimRecoveryCode(
      userId,
      sha256(normaliseRecoveryCode(recoveryCode)),
      nowIso(),
    );
  }

  return {
    /** A new secret, waiting for its first code in `enable`; 409 while two-factor is on. */
    async setup(person: User): Promise<{ secret: string; otpauthUrl: string }> {
      if (person.twoFactorEnabled)
        throw conflict('CONFLICT', 'Two-factor sign-in is already on; turn it off first to set up another');
      const secret = new Secret({ size: 20 }).base32;
      await createTwoFactorRepo(db.kysely).setPending(person.id, seal(person.id, secret), nowIso());
      return { secret, otpauthUrl: totpOf(secret, person.email).toString() };
    },

    /** Confirms the waiting secret with a code of it: two-factor on, and 10 recovery codes shown once. */
    async enable(person: User, code: string): Promise<{ recoveryCodes: string[] }> {
      if (person.twoFactorEnabled) throw conflict('CONFLICT', 'Two-factor sign-in is already on');
      const repo = createTwoFactorRepo(db.kysely);
      const pending = (await repo.findSecrets(person.id))?.pendingSecretSealed;
      if (!pending) throw conflict('CONFLICT', 'Set up two-factor sign-in first (POST /api/auth/2fa/setup)');
      const step = stepOf(unseal(person.id, pending), code);
      if (step === null) throw invalidCode();
      const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const now = nowIso();
      await inTransaction(db.kysely, async (trx) => {
        const inTrx = createTwoFactorRepo(trx);
        if (!(await inTrx.enable(person.id, pending, step, now)))
          throw conflict('CONFLICT', 'The set-up changed meanwhile; scan the newest code');
        await inTrx.replaceRecoveryCodes(
          person.id,
          recoveryCodes.map((recoveryCode) => sha256(normaliseRecoveryCode(recoveryCode))),
          now,
        );
      });
      return { recoveryCodes };
    },

    /**
     * Turns two-factor off with the password and a code (of the app, or a recovery code: the
     * way back for someone who lost the app). Both count in the login limiter.
     */
    async disable(person: User, input: { password: string; code: string }, ip: string): Promise<void> {
      await enforceLoginLimit(`login:ip:${ip}`);
      await confirmPassword(person, input.password, 'password');
      if (!person.twoFactorEnabled) return;
      if (!(await acceptSecondFactor(person.id, { code: input.code }))) throw invalidCode();
      await inTransaction(db.kysely, (trx) => createTwoFactorRepo(trx).disable(person.id, nowIso()));
    },

    /** The first step of a login passed for a person with two-factor on: what the second step needs. */
    async challengeFor(user: User): Promise<TwoFactorChallenge> {
      const challenge = randomToken();
      const now = nowIso();
      await createTwoFactorRepo(db.kysely).insertChallenge({
        userId: user.id,
        tokenHash: sha256(challenge),
        expiresAt: isoAfterSeconds(CHALLENGE_TTL_SECONDS),
        now,
      });
      return { twoFactorRequired: true, challenge };
    },

    /**
     * The second step: a live challenge and a code (or recovery code) start the session. An
     * unknown, used or expired challenge: 410 LINK_EXPIRED (sign in again); a wrong code:
     * 401 TWO_FACTOR_INVALID. Each try counts in the login limiter, per IP and per email.
     */
    async completeLogin(
      input: { challenge: string } & SecondFactor,
      ip: string,
      context: SignInContext,
    ): Promise<IssuedSession> {
      await enforceLoginLimit(`login:ip:${ip}`);
      const repo = createTwoFactorRepo(db.kysely);
      const found = await repo.findChallenge(sha256(input.challenge));
      const expired = () => new DomainError('LINK_EXPIRED', 'This sign-in has expired; sign in again');
      if (!found || found.expiresAt <= nowIso()) throw expired();
      await enforceLoginLimit(`login:email:${found.email}`);
      if (!(await acceptSecondFactor(found.userId, input))) throw invalidCode();
      if (!(await repo.deleteChallenge(found.id))) throw expired();
      const user = await createUserRepo(db.kysely).findById(found.userId);
      if (!user) throw expired();
      return startSession(user, context);
    },
  };
}
