import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type Content, layout } from './layout.js';
import type { Mailbox } from './mime.js';
import type { Branding } from './schemas.js';
import type { SmtpSender } from './smtp-sender.js';

/**
 * A mail about a person's own account. The links carry a token that is stored only as a
 * hash, so these mails are never queued: each is written and handed to the SMTP sender right
 * after the change that made it committed, and is never stored or logged. A send that fails
 * is lost (logged without its words); the person asks again (resend, forgot).
 */
export type AccountMail =
  | { kind: 'verify_email'; to: string; name: string; url: string }
  | { kind: 'confirm_new_email'; to: string; name: string; url: string }
  | { kind: 'email_change_notice'; to: string; name: string; newEmail: string }
  | { kind: 'reset_password'; to: string; name: string; url: string }
  | { kind: 'password_changed'; to: string; name: string };

const CONTENT: { [K in AccountMail['kind']]: (mail: Extract<AccountMail, { kind: K }>) => Content } = {
  verify_email: ({ name, url }) => ({
    subject: 'Confirm your email address',
    heading: 'Confirm your email address',
    paragraphs: [
      `Hello ${name},`,
      'Confirm that this address is yours to finish setting up your account. The link works once, for 24 hours.',
      'If you did not create an account, ignore this message.',
    ],
    details: [],
    action: { label: 'Confirm my address', url },
  }),
  confirm_new_email: ({ name, url }) => ({
    subject: 'Confirm your new email address',
    heading: 'Confirm your new email address',
    paragraphs: [
      `Hello ${name},`,
      'You asked to sign in with this address from now on. It takes effect when you confirm it; the link works once, for 24 hours.',
      'If you did not ask for this, ignore this message.',
    ],
    details: [],
    action: { label: 'Confirm my new address', url },
  }),
  email_change_notice: ({ name, newEmail }) => ({
    subject: 'Your email address is being changed',
    heading: 'Your email address is being changed',
    paragraphs: [
      `Hello ${name},`,
      `Someone signed in to your account asked to change its address to ${newEmail}. It changes once that address is confirmed.`,
      'If this was not you, sign in, change your password and end your other sessions.',
    ],
    details: [],
  }),
  reset_password: ({ name, url }) => ({
    subject: 'Reset your password',
    heading: 'Reset your password',
    paragraphs: [
      `Hello ${name},`,
      'Choose a new password with the link below. It works once, for 30 minutes; a newer request replaces it.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ],
    details: [],
    action: { label: 'Choose a new password', url },
  }),
  password_changed: ({ name }) => ({
    subject: 'Your password was changed',
    heading: 'Your password was changed',
    paragraphs: [
      `Hello ${name},`,
      'The password of your account was just changed, and your other sessions were ended.',
      'If this was not you, reset your password now with "Forgot password" on the sign-in page.',
    ],
    details: [],
  }),
};

export interface AccountMailerDeps {
  /** The SMTP sender, or null when mail is off. */
  sender: () => SmtpSender | null;
  from: Mailbox;
  /** The name mails are signed with (the service's, not an organisation's). */
  branding: Branding;
  log?: FastifyBaseLogger;
}

/** What is logged of a failure: the server's words, never an SMTP URL's credentials. */
const reasonOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error))
    .replace(/smtps?:\/\/\S+/gi, '<smtp>')
    .slice(0, 500);

export function createAccountMailer({ sender, from, branding, log }: AccountMailerDeps) {
  const domain = from.address.split('@')[1] ?? 'localhost';
  const inFlight = new Set<Promise<void>>();

  async function deliver(mail: AccountMail): Promise<void> {
    const smtp = sender();
    if (!smtp) {
      log?.warn({ kind: mail.kind }, 'account mail not sent: SMTP_URL is not set');
      return;
    }
    const words = layout(branding, (CONTENT[mail.kind] as (m: AccountMail) => Content)(mail));
    try {
      const [outcome] = await smtp.sendAll([
        {
          from,
          to: mail.to,
          subject: words.subject,
          text: words.text,
          html: words.html,
          messageId: `<${randomUUID()}@${domain}>`,
        },
      ]);
      if (outcome?.error)
        log?.warn({ kind: mail.kind, error: reasonOf(outcome.error.message) }, 'account mail not sent');
    } catch (error) {
      log?.warn({ kind: mail.kind, error: reasonOf(error) }, 'account mail not sent');
    }
  }

  return {
    /** Sends in the background: the caller's answer never waits for SMTP. */
    send(mail: AccountMail): void {
      const sending = deliver(mail);
      inFlight.add(sending);
      void sending.finally(() => inFlight.delete(sending));
    },
    /** Resolves once every send started so far has finished (at shutdown). */
    async settled(): Promise<void> {
      await Promise.all(inFlight);
    },
  };
}

export type AccountMailer = ReturnType<typeof createAccountMailer>;
