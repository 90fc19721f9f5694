import { hash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import { coalescing } from '../../lib/coalescing.js';
import { createGiveWay } from '../../lib/give-way.js';
import type { OutboxConsumerPort } from '../outbox/service.js';
import { type AccountMail, createAccountMailer } from './account-mail.js';
import { reservationUid } from './calendar.js';
import { createMailRepo, GROUP_ROWS } from './repo.js';
import {
  type Branding,
  type DrainResult,
  type Mail,
  type MailableEvent,
  type MailCalendar,
  type MailedReservation,
  type MailKind,
  mailedInvitation,
  mailedReservation,
  mailedWebhook,
} from './schemas.js';
import { createSmtpSender, type SenderMessage, type SendOutcome, type SmtpSender } from './smtp-sender.js';
import { type BookingMailInput, type BookingTemplate, type MailBody, subjectOf } from './templates.js';

export const MAIL_DRAIN_JOB = 'mail.drain';
export const MAIL_PURGE_JOB = 'mail.purge';
const DRAIN_EVERY_MINUTES = 1;
const PURGE_EVERY_MINUTES = 60;
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
const HOUSE_COLOUR = '#2563eb';
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export interface MailServiceDeps {
  db: Db;
  config: Config;
  jobs: JobQueue;
  log?: FastifyBaseLogger;
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

const isReservationEvent = (type: string) => type.startsWith('reservation.');

/** What a booking mail's calendar needs counted before it goes: its SEQUENCE, and whether it goes at all. */
interface CalendarStep {
  /** invite: SEQUENCE as recorded (0 the first time); reschedule: counted up; cancel: one above the last sent. */
  op: 'invite' | 'reschedule' | 'cancel';
  eventId: string;
  facts: Omit<MailCalendar, 'method' | 'sequence'>;
}

/** What a booking mail's calendar does: the mails not named carry none. */
const CALENDAR_STEPS: Partial<Record<MailKind, CalendarStep['op']>> = {
  booking_confirmation: 'invite',
  booking_reschedule: 'reschedule',
  booking_cancellation: 'cancel',
  booking_expiry: 'cancel',
};

/** A mail ready to claim, its calendar (if any) still to count. */
interface PlannedMail {
  mail: Mail;
  calendar: CalendarStep | null;
}

export function createMailService({ db, config, jobs, log, outbox, giveWay }: MailServiceDeps) {
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

  async function brandingOf(organisationId: number): Promise<Branding | null> {
    const organisation = await lookup(`organisation:${organisationId}`, () =>
      repo.organisation(organisationId),
    );
    if (!organisation) return null;
    const color = organisation.color ?? HOUSE_COLOUR;
    return {
      name: organisation.name,
      email: organisation.email,
      address: organisation.address,
      logoUrl: organisation.logoUrl,
      // `#rgb` as `#rrggbb`: the only forms the organisation's colour may take.
      color: /^#[0-9a-f]{3}$/i.test(color) ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color,
      timezone: organisation.timezone,
    };
  }

  const keyOf = (eventId: string, kind: MailKind, to: string) => `${eventId}/${kind}/${to}`;

  function mail(event: MailableEvent, to: string, branding: Branding, body: MailBody): Mail {
    return {
      key: keyOf(event.id, body.template, to),
      kind: body.template,
      eventId: event.id,
      organisationId: event.organisationId,
      to,
      fromName: branding.name,
      replyTo: branding.email,
      subject: subjectOf(body),
      body,
      calendar: null,
    };
  }

  /**
   * Which booking mail an event means. By status as well as type: a paid booking's
   * `reservation.created` (or a paid hold's confirm) leaves it `pending_payment`, which
   * is a hold waiting at its checkout, not a confirmation.
   */
  function bookingKind(type: string, reservation: MailedReservation): BookingTemplate | null {
    switch (type) {
      case 'reservation.created':
      case 'reservation.confirmed':
        if (reservation.status === 'confirmed') return 'booking_confirmation';
        return reservation.status === 'pending_payment' ? 'booking_hold' : null;
      case 'reservation.held':
        return reservation.status === 'held' || reservation.status === 'pending_payment'
          ? 'booking_hold'
          : null;
      case 'reservation.rescheduled':
        return 'booking_reschedule';
      case 'reservation.cancelled':
        return 'booking_cancellation';
      case 'reservation.expired':
        return 'booking_expiry';
      default:
        return null;
    }
  }

  /**
   * The calendar object a booking mail will carry, before its SEQUENCE is known (the drain
   * counts a group's in a few statements, `withCalendars`). Invitations go out once a
   * booking is confirmed; a cancellation or expiry carries a CANCEL only when one went out
   * before (a hold that lapsed was never in anyone's calendar).
   */
  function calendarStep(
    event: MailableEvent,
    kind: MailKind,
    input: BookingMailInput,
    to: string,
  ): CalendarStep | null {
    const { reservation, branding } = input;
    const op = CALENDAR_STEPS[kind];
    if (!op) return null;
    return {
      op,
      eventId: event.id,
      facts: {
        uid: reservationUid(reservation.id, uidHost),
        stamp: event.occurredAt,
        reservation,
        branding,
        serviceName: input.serviceName,
        organizerEmail: branding.email ?? sender.address,
        attendeeEmail: to,
      },
    };
  }

  /**
   * Gives each planned mail its calendar, in event order: a run of invitations (a burst of
   * bookings) is recorded in one statement, not one a mail.
   */
  async function withCalendars(planned: readonly PlannedMail[]): Promise<Mail[]> {
    const now = new Date().toISOString();
    const mails: Mail[] = [];
    const attach = (plan: PlannedMail, method: MailCalendar['method'], sequence: number) =>
      mails.push({ ...plan.mail, calendar: { ...plan.calendar!.facts, method, sequence } });
    for (let i = 0; i < planned.length; ) {
      const plan = planned[i]!;
      const step = plan.calendar;
      if (step?.op === 'invite') {
        let end = i;
        while (planned[end]?.calendar?.op === 'invite') end += 1;
        const run = planned.slice(i, end);
        const sequences = await repo.recordInvitations(
          run.map((p) => p.calendar!.facts.reservation.id),
          now,
        );
        for (const p of run) attach(p, 'REQUEST', sequences.get(p.calendar!.facts.reservation.id) ?? 0);
        i = end;
        continue;
      }
      i += 1;
      if (!step) {
        mails.push(plan.mail);
      } else if (step.op === 'reschedule') {
        // Counted whatever the status, so a later confirmation's SEQUENCE is above it.
        const sequence = await repo.countReschedule(step.facts.reservation.id, step.eventId, now);
        if (step.facts.reservation.status === 'confirmed') attach(plan, 'REQUEST', sequence);
        else mails.push(plan.mail);
      } else {
        const sent = await repo.invitationSequence(step.facts.reservation.id);
        // A cancellation outranks every request before it.
        if (sent === null) mails.push(plan.mail);
        else attach(plan, 'CANCEL', sent + 1);
      }
    }
    return mails;
  }

  async function reservationMails(event: MailableEvent): Promise<PlannedMail[] | null> {
    const parsed = mailedReservation.safeParse(event.data);
    if (!parsed.success || event.organisationId === null) return null;
    const reservation = parsed.data;
    const kind = bookingKind(event.type, reservation);
    if (!kind) return null;
    const to = reservation.customer.email?.trim().toLowerCase();
    if (!to) return [];
    const branding = await brandingOf(event.organisationId);
    if (!branding) return [];
    const typeId = reservation.resourceTypeId;
    const serviceName =
      typeId === null ? null : await lookup(`type:${typeId}`, () => repo.resourceTypeName(typeId));
    const input: BookingMailInput = { branding, reservation, serviceName };
    return [
      {
        mail: mail(event, to, branding, { template: kind, input }),
        calendar: calendarStep(event, kind, input, to),
      },
    ];
  }

  async function invitationMails(event: MailableEvent): Promise<PlannedMail[] | null> {
    const parsed = mailedInvitation.safeParse(event.data);
    if (!parsed.success) return null;
    const invitation = parsed.data;
    const branding = await brandingOf(invitation.organisationId);
    // Accepted, declined or withdrawn before the mail went: nobody to tell.
    const invitee = await repo.invitee(invitation.invitationId);
    if (!branding || !invitee) return [];
    const to = (invitation.email ?? invitee.email ?? invitee.accountEmail)?.toLowerCase();
    if (!to) return [];
    const input = {
      branding,
      invitation,
      inviterName: invitee.inviterName,
      acceptUrl: `${config.frontendUrl}/app/invitations`,
    };
    return [
      { mail: mail(event, to, branding, { template: 'membership_invitation', input }), calendar: null },
    ];
  }

  async function webhookDisabledMails(event: MailableEvent): Promise<PlannedMail[] | null> {
    const parsed = mailedWebhook.safeParse(event.data);
    if (!parsed.success || event.organisationId === null) return null;
    const branding = await brandingOf(event.organisationId);
    if (!branding) return [];
    const input = {
      branding,
      webhook: parsed.data,
      manageUrl: `${config.frontendUrl}/app/organisations/${event.organisationId}/webhooks/${parsed.data.id}`,
    };
    return (await repo.ownerEmails(event.organisationId)).map((to) => ({
      mail: mail(event, to, branding, { template: 'webhook_disabled', input }),
      calendar: null,
    }));
  }

  /** What to send for an event, to whom, its calendar not yet counted: null when the event sends no mail. */
  async function planFor(event: MailableEvent): Promise<PlannedMail[] | null> {
    if (isReservationEvent(event.type)) return reservationMails(event);
    if (event.type === 'membership.invited') return invitationMails(event);
    if (event.type === 'webhook.disabled') return webhookDisabledMails(event);
    return null;
  }

  /** What to send for an event, to whom: null when the event sends no mail. */
  async function mailFor(event: MailableEvent): Promise<Mail[] | null> {
    const planned = await planFor(event);
    return planned && withCalendars(planned);
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
   * Sends the mails of a run of events: claimed together, sent in order (one exchange with
   * the sender's thread), marked together. Answers how many of the events are done; fewer
   * than all when the drain must stop (a mail another sender holds, or an SMTP failure worth
   * another try).
   */
  async function deliverGroup(events: MailableEvent[], result: DrainResult): Promise<number> {
    const plans: PlannedMail[] = [];
    const eventOf: number[] = [];
    const keys = new Set<string>();
    for (const [index, event] of events.entries()) {
      if (Date.now() - Date.parse(event.occurredAt) > MAX_EVENT_AGE_MS) continue;
      for (const plan of (await planFor(event)) ?? []) {
        // The same mail twice in one event (an owner listed twice) is one mail.
        if (keys.has(plan.mail.key)) continue;
        keys.add(plan.mail.key);
        plans.push(plan);
        eventOf.push(index);
      }
    }
    const mails = await withCalendars(plans);
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
    const sent: number[] = [];
    /** The event a failure worth another try stopped at. */
    let stoppedAt: number | null = null;
    try {
      let outcomes: SendOutcome[];
      try {
        outcomes = await smtpOf().sendAll(sendable.map(({ mail, messageId }) => messageOf(mail, messageId)));
      } catch (error) {
        // Nothing is known of any of them (the thread died, or they could not cross to it): all are tried again.
        outcomes = [{ error: { message: describe(error), responseCode: null, permanent: false } }];
      }
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

  if (config.mail.smtpUrl) {
    jobs.work(MAIL_DRAIN_JOB, async () => void (await drain()), { retryLimit: 0, deduplicate: true });
    jobs.every(MAIL_DRAIN_JOB, DRAIN_EVERY_MINUTES);
    outbox.onNewEvents('mail', drain);
  }
  jobs.work(MAIL_PURGE_JOB, async () => void (await purge()), { retryLimit: 0, deduplicate: true });
  jobs.every(MAIL_PURGE_JOB, PURGE_EVERY_MINUTES);

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
