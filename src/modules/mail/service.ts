import { type AccountMail, createAccountMailer } from './account-mail.js';
import { createMailContext, type MailContext, type MailServiceDeps } from './context.js';
import { createDrain, drainOnNewEvents } from './drain.js';
import { HOUSE_COLOUR } from './plan-context.js';
import { purgeClaims } from './retention.js';
import type { DrainResult, Mail, MailableEvent } from './schemas.js';

export type { MailServiceDeps } from './context.js';

export const MAIL_DRAIN_JOB = 'mail.drain';
export const MAIL_PURGE_JOB = 'mail.purge';
export const DRAIN_EVERY_MINUTES = 1;
export const PURGE_EVERY_MINUTES = 60;

/**
 * Mail (DECISIONS.md "Email"): the outbox's events mailed to the people they concern, each
 * mail once, by a drain that follows the outbox; and a person's own account mails, sent at once.
 */
export interface MailService {
  /** What to send for an event, to whom: null when the event sends no mail. */
  mailFor(event: MailableEvent): Promise<Mail[] | null>;
  /**
   * Sends the mail of every event after the stored position, in order, each once.
   * Stops at a transient SMTP failure (the next run starts from that event again).
   */
  drain(): Promise<DrainResult>;
  /** Deletes the claims of mails older than the outbox keeps its events; answers how many went. */
  purge(): Promise<number>;
  /** A mail about a person's own account (a link, a notice): sent now, in the background (account-mail.ts). */
  sendAccountMail(mail: AccountMail): void;
  /** Resolves once the account mails in flight are sent and the SMTP sender is closed. */
  close(): Promise<void>;
}

/** What to send for an event, to whom: null when the event sends no mail. */
async function mailFor({ planner }: MailContext, event: MailableEvent): Promise<Mail[] | null> {
  const planned = await planner.planFor(event);
  return planned && (await planner.withCalendars(planned)).filter((mail) => mail !== null);
}

/** Account mails come from MAIL_FROM, in the house's colours. */
function createHouseAccountMailer({ config, log, sender, uidHost, smtp }: MailContext) {
  return createAccountMailer({
    sender: () => (config.mail.smtpUrl ? smtp.get() : null),
    from: { name: sender.name ?? '', address: sender.address },
    branding: {
      name: sender.name ?? uidHost,
      email: null,
      address: null,
      logoUrl: null,
      color: HOUSE_COLOUR,
      timezone: 'UTC',
    },
    ...(log ? { log } : {}),
  });
}

/** The mail service; its drain registered with the outbox as it is made (its jobs: module.ts). */
export function createMailService(deps: MailServiceDeps): MailService {
  const ctx = createMailContext(deps);
  const accountMail = createHouseAccountMailer(ctx);
  const drain = createDrain(ctx);
  drainOnNewEvents(ctx, drain);
  return {
    mailFor: (event) => mailFor(ctx, event),
    drain,
    purge: () => purgeClaims(ctx),
    sendAccountMail(mail) {
      accountMail.send(mail);
    },
    async close() {
      await accountMail.settled();
      await ctx.smtp.close();
    },
  };
}
