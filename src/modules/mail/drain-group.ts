import { hash } from 'node:crypto';
import type { MailContext } from './context.js';
import type { PlannedMail } from './plan-calendars.js';
import type { DrainResult, Mail, MailableEvent } from './schemas.js';
import type { SenderMessage, SendOutcome } from './smtp-sender.js';

/** A mail claimed longer ago than this and never marked was a send that crashed. */
const CLAIM_LEASE_MS = 2 * 60_000;
/** Mail about an event older than this is not sent at all (e.g. mail switched on late). */
const MAX_EVENT_AGE_MS = 24 * 60 * 60_000;

/** What is kept of an SMTP failure: the server's words, never the URL and its credentials. */
const describe = (error: unknown) =>
  (error instanceof Error ? error.message : String(error))
    .replace(/smtps?:\/\/\S+/gi, '<smtp>')
    .slice(0, 500);

/** The Message-ID of a mail: the same for every attempt at it, so a resend is the same message. */
function messageIdOf({ sender }: MailContext, mail: Mail): string {
  const senderDomain = sender.address.split('@')[1] ?? 'localhost';
  return `<${hash('sha256', mail.key).slice(0, 32)}@${senderDomain}>`;
}

/** What the sender's thread is given of a mail. */
const messageOf = ({ sender }: MailContext, mail: Mail, messageId: string): SenderMessage => ({
  from: { name: sender.name ?? mail.fromName ?? '', address: sender.address },
  to: mail.to,
  ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
  subject: mail.subject,
  body: mail.body,
  messageId,
  ...(mail.calendar ? { calendar: mail.calendar } : {}),
});

/**
 * The mails of a run of events, each once, with the index of the event it is for; an event
 * too old to mail about sends none.
 */
async function planGroup(
  { planner }: MailContext,
  events: MailableEvent[],
): Promise<{ mails: Mail[]; eventOf: number[] }> {
  const plans: PlannedMail[] = [];
  const planEvents: number[] = [];
  const keys = new Set<string>();
  for (const [index, event] of events.entries()) {
    if (Date.now() - Date.parse(event.occurredAt) > MAX_EVENT_AGE_MS) continue;
    for (const plan of (await planner.planFor(event)) ?? []) {
      // The same mail twice in one event (an owner listed twice) is one mail.
      if (keys.has(plan.mail.key)) continue;
      keys.add(plan.mail.key);
      plans.push(plan);
      planEvents.push(index);
    }
  }
  const counted = await planner.withCalendars(plans);
  return {
    mails: counted.filter((mail) => mail !== null),
    eventOf: planEvents.filter((_, i) => counted[i] !== null),
  };
}

/** A claimed mail ready to send, with the index of its event. */
interface Sendable {
  claimId: number;
  mail: Mail;
  messageId: string;
  event: number;
}

/**
 * Claims the mails of a group together. Answers those to send (claimed before the first one
 * another sender holds right now), the claims after that one to give back, and its index
 * (-1 when none is held).
 */
async function claimGroup(
  ctx: MailContext,
  mails: Mail[],
  eventOf: number[],
): Promise<{ sendable: Sendable[]; unsent: number[]; busy: number }> {
  const messageIds = mails.map((mail) => messageIdOf(ctx, mail));
  const now = new Date();
  const claims = await ctx.repo.claimAll(
    mails.map((mail, i) => ({
      dedupeKey: mail.key,
      eventId: mail.eventId,
      kind: mail.kind,
      organisationId: mail.organisationId,
      recipient: mail.to,
      subject: mail.subject,
      messageId: messageIds[i]!,
      now: now.toISOString(),
      staleBefore: new Date(now.getTime() - CLAIM_LEASE_MS).toISOString(),
    })),
  );
  // The mails claimed before the first one another sender holds right now: the drain stops
  // there, and the next run sees it done.
  const busy = claims.findIndex((claim) => claim.outcome === 'busy');
  const end = busy === -1 ? claims.length : busy;
  const sendable = claims
    .slice(0, end)
    .flatMap((claim, i) =>
      claim.outcome === 'claimed'
        ? [{ claimId: claim.id, mail: mails[i]!, messageId: messageIds[i]!, event: eventOf[i]! }]
        : [],
    );
  const unsent = claims.slice(end).flatMap((claim) => (claim.outcome === 'claimed' ? [claim.id] : []));
  return { sendable, unsent, busy };
}

/** The sender's outcome of each mail, in order; one retryable failure for all when the exchange failed. */
async function sendAll(ctx: MailContext, sendable: Sendable[]): Promise<SendOutcome[]> {
  try {
    const linked = await ctx.planner.withManageLinks(sendable.map(({ mail }) => mail));
    return await ctx.smtp
      .get()
      .sendAll(sendable.map(({ messageId }, i) => messageOf(ctx, linked[i]!, messageId)));
  } catch (error) {
    // Nothing is known of any of them (the thread died, or they could not cross to it): all are tried again.
    return [{ error: { message: describe(error), responseCode: null, permanent: false } }];
  }
}

/**
 * Sends the claimed mails in one exchange and records each outcome: sent, refused for good,
 * or given back at the first failure worth another try (with every mail after it and the
 * `unsent` claims). Answers the event that failure stopped at, or null.
 */
async function sendClaimed(
  ctx: MailContext,
  sendable: Sendable[],
  unsent: number[],
  result: DrainResult,
): Promise<number | null> {
  const { repo, log } = ctx;
  const sent: number[] = [];
  let stoppedAt: number | null = null;
  try {
    const outcomes = await sendAll(ctx, sendable);
    for (const [i, { claimId, mail, event }] of sendable.entries()) {
      const outcome = outcomes[i];
      if (!outcome || stoppedAt !== null) {
        unsent.push(claimId);
        continue;
      }
      if (!outcome.error) {
        sent.push(claimId);
        result.sent += 1;
        continue;
      }
      const reason = describe(outcome.error.message);
      if (outcome.error.permanent) {
        await repo.markFailed(claimId, reason);
        result.failed += 1;
        log?.warn({ eventId: mail.eventId, kind: mail.kind, error: reason }, 'mail refused');
        continue;
      }
      await repo.release([claimId], reason);
      log?.warn({ eventId: mail.eventId, kind: mail.kind, error: reason }, 'mail not sent; will retry');
      stoppedAt = event;
    }
  } finally {
    await repo.markSent(sent, new Date().toISOString());
    await repo.release(unsent);
  }
  return stoppedAt;
}

/**
 * Sends the mails of a run of events: claimed together, sent in order (one exchange with
 * the sender's thread), marked together. Answers how many of the events are done; fewer
 * than all when the drain must stop (a mail another sender holds, or an SMTP failure worth
 * another try).
 */
export async function deliverGroup(
  ctx: MailContext,
  events: MailableEvent[],
  result: DrainResult,
): Promise<number> {
  const { mails, eventOf } = await planGroup(ctx, events);
  const { sendable, unsent, busy } = await claimGroup(ctx, mails, eventOf);
  const stoppedAt = await sendClaimed(ctx, sendable, unsent, result);
  return stoppedAt ?? (busy === -1 ? events.length : eventOf[busy]!);
}
