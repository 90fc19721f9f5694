import { type Db, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { conflict, DomainError, invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AccountMail } from '../mail/account-mail.js';
import { hourlyLimit } from './limits.js';
import { issueLink, linkUrl, useLink } from './links.js';
import { createUserRepo } from './repo.js';
import type { User } from './schemas.js';

export interface EmailVerificationDeps {
  db: Db;
  frontendUrl: string;
  store: EphemeralStore;
  sendMail: (mail: AccountMail) => void;
  /** The signed-in person's password, checked before their address changes. */
  confirmPassword: (user: User, password: string, field: string) => Promise<void>;
}

/**
 * Proving an address: the link mailed at registration (and again on request), and the
 * change of address, which takes effect when the new address is proved the same way.
 */
export function createEmailVerification({
  db,
  frontendUrl,
  store,
  sendMail,
  confirmPassword,
}: EmailVerificationDeps) {
  const users = createUserRepo(db.kysely);

  /** Mails a new verification link for the user's address. */
  async function mailVerification(user: User): Promise<void> {
    const token = await issueLink(db.kysely, { userId: user.id, purpose: 'verify_email', email: user.email });
    sendMail({
      kind: 'verify_email',
      to: user.email,
      name: user.name,
      url: linkUrl(frontendUrl, 'verify_email', token),
    });
  }

  /**
   * Uses a verification link: the address it was mailed to becomes the account's, verified.
   * A registration's link for an address the account has changed since is 410; a change's
   * link for an address another account took meanwhile is 409 EMAIL_TAKEN (the link stays
   * unused).
   */
  async function verify(token: string): Promise<void> {
    try {
      await inTransaction(db.kysely, async (trx) => {
        const link = await useLink(trx, token, ['verify_email', 'change_email']);
        const changing = link.purpose === 'change_email';
        if (!(await createUserRepo(trx).verifyEmail(link.userId, link.email, nowIso(), !changing)))
          throw new DomainError('LINK_EXPIRED', 'This link was sent to an address the account no longer has');
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict('EMAIL_TAKEN', 'Another account has this address now; choose another one');
      throw error;
    }
  }

  /** Mails the signed-in person a new verification link, at most 5 an hour; nothing when verified. */
  async function resend(user: User): Promise<void> {
    await hourlyLimit(store, `verify-resend:user:${user.id}`, 'Too many verification mails; try again later');
    if (user.emailVerified) return;
    await mailVerification(user);
  }

  /**
   * Starts a change of address: a link to the new address (which it proves) and a notice to
   * the current one. The address changes when that link is used.
   */
  async function requestChange(user: User, input: { newEmail: string; password: string }): Promise<void> {
    await confirmPassword(user, input.password, 'password');
    if (input.newEmail === user.email) throw invalidField('newEmail', 'is your address already');
    await hourlyLimit(store, `email-change:user:${user.id}`, 'Too many address changes; try again later');
    if (await users.findByEmail(input.newEmail))
      throw conflict('EMAIL_TAKEN', 'An account with this email already exists');
    const token = await issueLink(db.kysely, {
      userId: user.id,
      purpose: 'change_email',
      email: input.newEmail,
    });
    sendMail({
      kind: 'confirm_new_email',
      to: input.newEmail,
      name: user.name,
      url: linkUrl(frontendUrl, 'change_email', token),
    });
    sendMail({ kind: 'email_change_notice', to: user.email, name: user.name, newEmail: input.newEmail });
  }

  return { mailVerification, verify, resend, requestChange };
}
