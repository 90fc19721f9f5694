import { reservationUid } from './calendar.js';
import type { MailRepo } from './repo.js';
import type { Mail, MailableEvent, MailCalendar, MailKind } from './schemas.js';
import type { BookingMailInput } from './templates.js';

/** What a booking mail's calendar needs counted before it goes: its SEQUENCE, and whether it goes at all. */
export interface CalendarStep {
  /** invite: SEQUENCE as recorded (0 the first time); reschedule: counted up; cancel: one above the last sent. */
  op: 'invite' | 'reschedule' | 'cancel';
  eventId: string;
  facts: Omit<MailCalendar, 'method' | 'sequence'>;
}

/** A mail ready to claim, its calendar (if any) still to count. */
export interface PlannedMail {
  mail: Mail;
  calendar: CalendarStep | null;
}

/** What a booking mail's calendar does: the mails not named carry none. */
const CALENDAR_STEPS: Partial<Record<MailKind, CalendarStep['op']>> = {
  booking_confirmation: 'invite',
  booking_reschedule: 'reschedule',
  booking_cancellation: 'cancel',
  booking_expiry: 'cancel',
};

/**
 * The calendar object a booking mail will carry, before its SEQUENCE is known (the drain
 * counts a group's in a few statements, `withCalendars`). Invitations go out once a
 * booking is confirmed; a cancellation or expiry carries a CANCEL only when one went out
 * before (a hold that lapsed was never in anyone's calendar).
 */
export function calendarStep(
  { uidHost, senderAddress }: { uidHost: string; senderAddress: string },
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

/**
 * Gives each planned mail its calendar, in event order: a run of invitations (a burst of
 * bookings) is recorded in one statement, not one a mail. Answers one entry a plan, null
 * for a mail that does not go: a hold's move (counted, so a later confirmation's SEQUENCE
 * is above it), and a cancellation of a booking its customer was never told of (a hold let
 * go: no invitation and no payment request went out).
 */
export async function withCalendars(
  repo: MailRepo,
  planned: readonly PlannedMail[],
): Promise<Array<Mail | null>> {
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
