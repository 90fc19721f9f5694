import { type Db, inTransaction } from '../../db/database.js';
import { hashPassword, verifyPassword } from '../../lib/crypto.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { DomainError, invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AccountMail } from '../mail/account-mail.js';
import { hourlyLimit, type LoginLimiter } from './limits.js';
import { issueLink, linkUrl, useLink } from './links.js';
import { createUserRepo } from './repo.js';
import type { User } from './schemas.js';
import type { Sessions } from './sessions.js';

export interface PasswordsDeps {
  db: Db;
  frontendUrl: string;
  store: EphemeralStore;
  sessions: Sessions;
  loginLimiter: LoginLimiter;
  sendMail: (mail: AccountMail) => void;
  /** Runs work the answer does not wait for (the caller settles it at shutdown). */
  inBackground: (work: () => Promise<void>) => void;
}

/**
 * Passwords: forgetting one (a mailed reset link), resetting it, and changing it while
 * signed in. A new password ends sessions: every one on a reset, the others on a change.
 */
export function createPasswords({
  db,
  frontendUrl,
  store,
  sessions,
  loginLimiter,
  sendMail,
  inBackground,
}: PasswordsDeps) {
  const users = createUserRepo(db.kysely);

  /**
   * Checks a signed-in person's password before a change to their account; counted by the
   * login limiter as a sign-in is. A wrong one is 400 on `field` (not 401: the session is fine).
   */
  async function confirmPassword(user: User, password: string, field: string): Promise<void> {
    await loginLimiter(`login:email:${user.email}`);
    const stored = await users.passwordHashOf(user.id);
    if (!stored || !(await verifyPassword(password, stored)))
      throw invalidField(field, 'is not your current password');
  }

  /**
   * Mails a reset link when an account has this address; answers the same, in about the same
   * time, when none has: the lookup is made and a token hashed either way, and the link's
   * write and the mail happen after the answer.
   */
  async function forgot(email: string, ip: string): Promise<void> {
    const limited = 'Too many password reset requests; try again later';
    await hourlyLimit(store, `forgot:ip:${ip}`, limited);
    await hourlyLimit(store, `forgot:email:${email}`, limited);
    const found = await users.findByEmail(email);
    if (!found) return;
    const { user } = found;
    inBackground(async () => {
      const token = await issueLink(db.kysely, {
        userId: user.id,
        purpose: 'reset_password',
        email: user.email,
      });
      sendMail({
        kind: 'reset_password',
        to: user.email,
        name: user.name,
        url: linkUrl(frontendUrl, 'reset_password', token),
      });
    });
  }

  /**
   * Sets a new password from a reset link: the link proves the mailbox (the address becomes
   * verified), and every session and refresh token of the account ends. A link for an
   * address the account no longer has is 410.
   */
  async function reset(token: string, password: string, ip: string): Promise<void> {
    const limited = 'Too many password resets; try again later';
    await hourlyLimit(store, `reset:ip:${ip}`, limited);
    const passwordHash = await hashPassword(password);
    const user = await inTransaction(db.kysely, async (trx) => {
      const link = await useLink(trx, token, ['reset_password']);
      await hourlyLimit(store, `reset:email:${link.email}`, limited);
      const repo = createUserRepo(trx);
      const owner = await repo.findById(link.userId);
      if (!owner || owner.email !== link.email)
        throw new DomainError('LINK_EXPIRED', 'This link was sent to an address the account no longer has');
      const now = nowIso();
      await repo.setPassword(owner.id, passwordHash, now);
      await repo.verifyEmail(owner.id, owner.email, now, true);
      await sessions.end(owner.id, { kind: 'all' }, trx);
      return owner;
    });
    sendMail({ kind: 'password_changed', to: user.email, name: user.name });
  }

  /** Changes the signed-in person's password; their other sessions end, this one stays. */
  async function change(
    user: User,
    currentSessionId: number,
    input: { currentPassword: string; newPassword: string },
  ): Promise<void> {
    await confirmPassword(user, input.currentPassword, 'currentPassword');
    const passwordHash = await hashPassword(input.newPassword);
    await inTransaction(db.kysely, async (trx) => {
      await createUserRepo(trx).setPassword(user.id, passwordHash, nowIso());
      await sessions.end(user.id, { kind: 'allBut', id: currentSessionId }, trx);
    });
    sendMail({ kind: 'password_changed', to: user.email, name: user.name });
  }

  return { confirmPassword, forgot, reset, change };
}
