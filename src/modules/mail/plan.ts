import type { Config } from '../../config.js';
import type { OrganisationsService } from '../organisations/service.js';
import { manageUrlOf, unsealManageToken } from '../reservations/manage-link.js';
import { reservationUid } from './calendar.js';
import type { MailRepo } from './repo.js';
import {
  type Branding,
  type Mail,
  type MailableEvent,
  type MailCalendar,
  type MailedReservation,
  type MailKind,
  mailedInvitation,
  mailedReservation,
  mailedWaitlistOffer,
  mailedWebhook,
} from './schemas.js';
import type { BookingMailInput, BookingTemplate, MailBody } from './templates.js';
import { subjectOf } from './templates.js';

/**
 * What each event mails, to whom (DECISIONS.md "Email" and "Pages people live in"): one
 * customer mail per outcome of a booking. A free booking sends its confirmation; a paid one
 * its "complete your payment" once its checkout exists, then its confirmation; a waitlist
 * offer its offer. A hold sends nothing of its own (its customer is on the page), nor does
 * its move, release or lapse; a cancellation or expiry goes to a customer who was told of
 * the booking. Every customer mail carries the manage link, unsealed only as it is sent.
 */

export const HOUSE_COLOUR = '#2563eb';

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
export interface PlannedMail {
  mail: Mail;
  calendar: CalendarStep | null;
}

/**
 * Which booking mail a reservation event means. By status as well as type: a paid booking's
 * `reservation.created` (or a paid hold's confirm, `reservation.held`) leaves it
 * `pending_payment` with its checkout, which asks for the payment; a plain hold mails nothing.
 * A move is counted for the calendar whatever the status, and sent only once the customer
 * was told of the booking (`withCalendars`).
 */
function bookingKind(type: string, reservation: MailedReservation): BookingTemplate | null {
  switch (type) {
    case 'reservation.created':
    case 'reservation.confirmed':
    case 'reservation.held':
      if (reservation.status === 'confirmed') return 'booking_confirmation';
      return reservation.status === 'pending_payment' && reservation.payment ? 'booking_payment' : null;
    case 'reservation.rescheduled':
      return 'booking_reschedule';
    case 'reservation.cancelled':
      return 'booking_cancellation';
    case 'reservation.expired':
      // A lapsed payment; a lapsed hold was never mailed.
      return reservation.payment ? 'booking_expiry' : null;
    default:
      return null;
  }
}

/** The reservation whose manage link a mail carries; null for a mail about no booking. */
const manageTargetOf = (body: MailBody): number | null =>
  'reservation' in body.input ? body.input.reservation.id : null;

export function createMailPlanner(deps: {
  repo: MailRepo;
  organisations: Pick<OrganisationsService, 'organisationById'>;
  config: Pick<Config, 'frontendUrl' | 'encryptionKey'>;
  /** A read kept for the drain's page (organisations, types): `read` once a key. */
  lookup: <T>(key: string, read: () => Promise<T>) => Promise<T>;
  /** The sender's address: a booking's organiser when its organisation has no email. */
  senderAddress: string;
  /** The host of calendar UIDs. */
  uidHost: string;
}) {
  const { repo, organisations, config, lookup, senderAddress, uidHost } = deps;

  async function brandingOf(organisationId: number): Promise<Branding | null> {
    const organisation = await lookup(`organisation:${organisationId}`, () =>
      organisations.organisationById(organisationId),
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
        organizerEmail: branding.email ?? senderAddress,
        attendeeEmail: to,
      },
    };
  }

  /** A booking mail about `reservation` to its customer: none without an address or an organisation. */
  async function customerMail(
    event: MailableEvent,
    kind: BookingTemplate,
    reservation: MailedReservation,
  ): Promise<PlannedMail[]> {
    const to = reservation.customer.email?.trim().toLowerCase();
    if (!to || event.organisationId === null) return [];
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

  async function reservationMails(event: MailableEvent): Promise<PlannedMail[] | null> {
    const parsed = mailedReservation.safeParse(event.data);
    if (!parsed.success || event.organisationId === null) return null;
    const kind = bookingKind(event.type, parsed.data);
    return kind && customerMail(event, kind, parsed.data);
  }

  /** The offer of a waitlist entry: its hold, told by the entry (the hold carries the entry's manage link). */
  async function waitlistOfferMails(event: MailableEvent): Promise<PlannedMail[] | null> {
    const parsed = mailedWaitlistOffer.safeParse(event.data);
    if (!parsed.success || event.organisationId === null) return null;
    const { offer, ...entry } = parsed.data;
    return customerMail(event, 'waitlist_offer', {
      ...entry,
      id: offer.reservationId,
      status: 'held',
      expiresAt: offer.expiresAt,
      payment: null,
    });
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

  /**
   * Gives each planned mail its calendar, in event order: a run of invitations (a burst of
   * bookings) is recorded in one statement, not one a mail. Answers one entry a plan, null
   * for a mail that does not go: a hold's move (counted, so a later confirmation's SEQUENCE
   * is above it), and a cancellation of a booking its customer was never told of (a hold let
   * go: no invitation and no payment request went out).
   */
  async function withCalendars(planned: readonly PlannedMail[]): Promise<Array<Mail | null>> {
    const now = new Date().toISOString();
    const mails: Array<Mail | null> = [];
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
        continue;
      }
      const { reservation } = step.facts;
      if (step.op === 'reschedule') {
        const sequence = await repo.countReschedule(reservation.id, step.eventId, now);
        if (reservation.status === 'confirmed') attach(plan, 'REQUEST', sequence);
        else mails.push(reservation.status === 'held' ? null : plan.mail);
        continue;
      }
      const sent = await repo.invitationSequence(reservation.id);
      // A cancellation outranks every request before it.
      if (sent !== null) attach(plan, 'CANCEL', sent + 1);
      else mails.push(reservation.payment ? plan.mail : null);
    }
    return mails;
  }

  /**
   * `mails` with their manage links, unsealed now, as they are sent: the plain token is in
   * the message and nowhere else (not in the claim, the outbox or a log). A reservation
   * stored without a sealed token (before migration 0057) gets no link.
   */
  async function withManageLinks(mails: readonly Mail[]): Promise<Mail[]> {
    const targets = mails.map((m) => manageTargetOf(m.body));
    const ids = targets.filter((id): id is number => id !== null);
    if (ids.length === 0) return [...mails];
    const links = await repo.manageLinks(ids);
    return mails.map((m, i) => {
      const link = links.get(targets[i]!);
      const token = link && unsealManageToken(config.encryptionKey, link);
      if (!token) return m;
      const input = { ...m.body.input, manageUrl: manageUrlOf(config.frontendUrl, token) };
      return { ...m, body: { ...m.body, input } as MailBody };
    });
  }

  return {
    /** What to send for an event, to whom, its calendar not yet counted: null when the event sends no mail. */
    async planFor(event: MailableEvent): Promise<PlannedMail[] | null> {
      if (event.type.startsWith('reservation.')) return reservationMails(event);
      if (event.type === 'waitlist.offered') return waitlistOfferMails(event);
      if (event.type === 'membership.invited') return invitationMails(event);
      if (event.type === 'webhook.disabled') return webhookDisabledMails(event);
      return null;
    },
    withCalendars,
    withManageLinks,
  };
}
