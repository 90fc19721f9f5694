import { hash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { coalescing } from '../../lib/coalescing.js';
import { createGiveWay } from '../../lib/give-way.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { OutboxConsumerPort } from '../outbox/service.js';
import { type AccountMail, createAccountMailer } from './account-mail.js';
import { createMailPlanner } from './plan.js';
import type { PlannedMail } from './plan-calendars.js';
import { HOUSE_COLOUR } from './plan-context.js';
import { createMailRepo, GROUP_ROWS } from './repo.js';
import type { DrainResult, Mail, MailableEvent } from './schemas.js';
import { createSmtpSender, type SenderMessage, type SendOutcome, type SmtpSender } from './smtp-sender.js';

export const MAIL_DRAIN_JOB = 'mail.drain';
export const MAIL_PURGE_JOB = 'mail.purge';
export const DRAIN_EVERY_MINUTES = 1;
export const PURGE_EVERY_MINUTES = 60;
/** Events read per outbox page. */
const DRAIN_BATCH = 100;
/**
 * Events whose mails are claimed together before they are sent, and marked sent together
 * after: two statements a group instead of two a mail. A crash in between sends at most
 * this many events' mails again after the lease, with the same Message-IDs. Under load much of
 * a statement's cost on SQLite's one thread is fixed (about 85 µs): groups of 25 cut the
 * drain's SQL a booking from 37 to 23 µs against groups of 10 (docs/performance.md).
 */
const SEND_GROUP = GROUP_ROWS;
/** A mail claimed longer ago than this and never marked was a send that crashed. */
const CLAIM_LEASE_MS = 2 * 60_000;
/** Mail about an event older than this is not sent at all (e.g. mail switched on late). */
const MAX_EVENT_AGE_MS = 24 * 60 * 60_000;
/** Claim rows live as long as the outbox keeps its events. */
const RETENTION_MS = 30 * 24 * 60 * 60_000;
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export interface MailServiceDeps {
  db: Db;
  config: Config;
  log?: FastifyBaseLogger;
  /** The organisations module: a mail's branding (archived organisations too). */
  organisations: Pick<OrganisationsService, 'organisationById'>;
  /** The outbox: read by the drain, which it runs soon after new events. */
  outbox: Pick<OutboxConsumerPort, 'readAfter' | 'onNewEvents'>;
  /**
   * What the drain awaits before each group, to give way to requests. By default it waits
   * while the event loop is busy or queries queue for a database connection (give-way.ts).
   */
  giveWay?: () => Promise<void>;
}

/** What is kept of an SMTP failure: the server's words, never the URL and its credentials. */
const describe = (error: unknown) =>
  (error instanceof Error ? error.message : String(error))
    .replace(/smtps?:\/\/\S+/gi, '<smtp>')
    .slice(0, 500);

/** `Name <address>` or `address`, as MAIL_FROM allows (config.ts checked it). */
function parseMailbox(text: string): { name: string | null; address: string } {
  const match = /^\s*(?:"?([^"<>]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(text);
  const name = match?.[1]?.trim();
  return { name: name || null, address: match?.[2] ?? match?.[3] ?? text };
}

export function createMailService({ db, config, log, outbox, organisations, giveWay }: MailServiceDeps) {
  const repo = createMailRepo(db.kysely);
  const sender = parseMailbox(config.mail.from);
  const senderDomain = sender.address.split('@')[1] ?? 'localhost';
  const uidHost = new URL(config.publicUrl).hostname;
  let smtp: SmtpSender | undefined;
  const smtpOf = () => {
    if (!config.mail.smtpUrl) throw new Error('Mail is off: SMTP_URL is not set');
    smtp ??= createSmtpSender({ url: config.mail.smtpUrl, timeouts: SMTP_TIMEOUTS });
    return smtp;
  };

  const accountMail = createAccountMailer({
    sender: () => (config.mail.smtpUrl ? smtpOf() : null),
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

  if (!config.mail.smtpUrl && config.env === 'production')
    log?.warn('SMTP_URL is not set: no mail is sent (booking confirmations, invitations)');

  /**
   * What a drain has read of organisations and types, for the page of events it is on (a
   * burst of bookings is mostly one organisation's); null outside a drain, which reads afresh.
   */
  let pageLookups: Map<string, Promise<unknown>> | null = null;
  function lookup<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (!pageLookups) return read();
    let found = pageLookups.get(key) as Promise<T> | undefined;
    if (!found) {
      found = read();
      pageLookups.set(key, found);
    }
    return found;
  }

  const planner = createMailPlanner({
    repo,
    organisations,
    config,
    lookup,
    senderAddress: sender.address,
    uidHost,
  });

  /** What to send for an event, to whom: null when the event sends no mail. */
  async function mailFor(event: MailableEvent): Promise<Mail[] | null> {
    const planned = await planner.planFor(event);
    return planned && (await planner.withCalendars(planned)).filter((mail) => mail !== null);
  }

  /** The Message-ID of a mail: the same for every attempt at it, so a resend is the same message. */
  const messageIdOf = (mail: Mail) => `<${hash('sha256', mail.key).slice(0, 32)}@${senderDomain}>`;

  /** What the sender's thread is given of a mail. */
  const messageOf = (mail: Mail, messageId: string): SenderMessage => ({
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
  async function planGroup(events: MailableEvent[]): Promise<{ mails: Mail[]; eventOf: number[] }> {
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
    mails: Mail[],
    eventOf: number[],
  ): Promise<{ sendable: Sendable[]; unsent: number[]; busy: number }> {
    const messageIds = mails.map(messageIdOf);
    const now = new Date();
    const claims = await repo.claimAll(
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
  async function sendAll(sendable: Sendable[]): Promise<SendOutcome[]> {
    try {
      const linked = await planner.withManageLinks(sendable.map(({ mail }) => mail));
      return await smtpOf().sendAll(sendable.map(({ messageId }, i) => messageOf(linked[i]!, messageId)));
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
    sendable: Sendable[],
    unsent: number[],
    result: DrainResult,
  ): Promise<number | null> {
    const sent: number[] = [];
    let stoppedAt: number | null = null;
    try {
      const outcomes = await sendAll(sendable);
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
  async function deliverGroup(events: MailableEvent[], result: DrainResult): Promise<number> {
    const { mails, eventOf } = await planGroup(events);
    const { sendable, unsent, busy } = await claimGroup(mails, eventOf);
    const stoppedAt = await sendClaimed(sendable, unsent, result);
    return stoppedAt ?? (busy === -1 ? events.length : eventOf[busy]!);
  }

  // Mail can wait, a booking's answer cannot: a group's planning, claims and marks run on the
  // request thread and the database, so while the loop is busy or requests queue for a
  // database connection (a burst of bookings) the drain sends a group at most every 250 ms and
  // catches up once the burst eases (docs/decisions.md Email).
  const beforeGroup = giveWay ?? createGiveWay({ alsoBusy: () => db.waiting() > 0 });

  async function drainOnce(): Promise<DrainResult> {
    const result: DrainResult = { events: 0, sent: 0, failed: 0, stopped: false };
    let position = await repo.position();
    for (;;) {
      const events = await outbox.readAfter(position, DRAIN_BATCH);
      let done = 0;
      pageLookups = new Map();
      try {
        while (done < events.length) {
          await beforeGroup();
          const group = events.slice(done, done + SEND_GROUP);
          const delivered = await deliverGroup(group, result);
          done += delivered;
          if (delivered < group.length) break;
        }
      } finally {
        pageLookups = null;
      }
      // The position moves once a page, to where the page stopped: one write, not one an
      // event. A drain that dies before reads the page again; the claims keep each mail to one send.
      if (done > 0) {
        const last = events[done - 1]!.id;
        // Another drain moved the position first: it carries on from there.
        if (!(await repo.advance(position, last, new Date().toISOString())))
          return { ...result, stopped: true };
        position = last;
        result.events += done;
      }
      if (done < events.length) return { ...result, stopped: true };
      if (events.length < DRAIN_BATCH) return result;
    }
  }

  // One drain at a time in this process; across instances the claims and the
  // position's compare-and-set keep each mail to one send.
  const drainOnceAtATime = coalescing(drainOnce);
  /**
   * Sends the mail of every event after the stored position, in order, each once.
   * Stops at a transient SMTP failure (the next run starts from that event again).
   */
  function drain(): Promise<DrainResult> {
    if (!config.mail.smtpUrl) return Promise.resolve({ events: 0, sent: 0, failed: 0, stopped: false });
    return drainOnceAtATime();
  }

  async function purge(): Promise<number> {
    return repo.purgeBefore(new Date(Date.now() - RETENTION_MS).toISOString());
  }

  if (config.mail.smtpUrl) outbox.onNewEvents('mail', drain);

  return {
    mailFor,
    drain,
    purge,
    /** A mail about a person's own account (a link, a notice): sent now, in the background (account-mail.ts). */
    sendAccountMail(mail: AccountMail): void {
      accountMail.send(mail);
    },
    async close(): Promise<void> {
      await accountMail.settled();
      await smtp?.close();
    },
  };
}

export type MailService = ReturnType<typeof createMailService>;
