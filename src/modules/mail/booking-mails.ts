import { calendarStep, type PlannedMail } from './plan-calendars.js';
import { brandingOf, type MailPlanDeps, mailOf } from './plan-context.js';
import {
  type MailableEvent,
  type MailedReservation,
  mailedReservation,
  mailedWaitlistOffer,
} from './schemas.js';
import type { BookingMailInput, BookingTemplate } from './templates.js';

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
    case 'reservation.reminder_sent':
      // Sent only for a confirmed booking; the sweep checks as it writes the event.
      return reservation.status === 'confirmed' ? 'booking_reminder' : null;
    case 'reservation.expired':
      // A lapsed payment; a lapsed hold was never mailed.
      return reservation.payment ? 'booking_expiry' : null;
    default:
      return null;
  }
}

/** A booking mail about `reservation` to its customer: none without an address or an organisation. */
async function customerMail(
  deps: MailPlanDeps,
  event: MailableEvent,
  kind: BookingTemplate,
  reservation: MailedReservation,
): Promise<PlannedMail[]> {
  const to = reservation.customer.email?.trim().toLowerCase();
  if (!to || event.organisationId === null) return [];
  const branding = await brandingOf(deps, event.organisationId);
  if (!branding) return [];
  const typeId = reservation.resourceTypeId;
  const serviceName =
    typeId === null ? null : await deps.lookup(`type:${typeId}`, () => deps.repo.resourceTypeName(typeId));
  const input: BookingMailInput = { branding, reservation, serviceName };
  return [
    {
      mail: mailOf(event, to, branding, { template: kind, input }),
      calendar: calendarStep(deps, event, kind, input, to),
    },
  ];
}

/** The customer mail of a reservation event; null when the event is not a reservation's. */
export async function reservationMails(
  deps: MailPlanDeps,
  event: MailableEvent,
): Promise<PlannedMail[] | null> {
  const parsed = mailedReservation.safeParse(event.data);
  if (!parsed.success || event.organisationId === null) return null;
  const kind = bookingKind(event.type, parsed.data);
  return kind && customerMail(deps, event, kind, parsed.data);
}

/** The offer of a waitlist entry: its hold, told by the entry (the hold carries the entry's manage link). */
export async function waitlistOfferMails(
  deps: MailPlanDeps,
  event: MailableEvent,
): Promise<PlannedMail[] | null> {
  const parsed = mailedWaitlistOffer.safeParse(event.data);
  if (!parsed.success || event.organisationId === null) return null;
  const { offer, ...entry } = parsed.data;
  return customerMail(deps, event, 'waitlist_offer', {
    ...entry,
    id: offer.reservationId,
    status: 'held',
    expiresAt: offer.expiresAt,
    payment: null,
  });
}
