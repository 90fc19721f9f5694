import { z } from 'zod';
import type { MailBody } from './templates.js';

/**
 * An event as the outbox answers it (`readAfter`): the subject's full API record in
 * `data`. Structural, so the mail module reads the outbox through its service only.
 */
export interface MailableEvent {
  id: string;
  type: string;
  occurredAt: string;
  organisationId: number | null;
  userId: number | null;
  data: unknown;
}

export const MAIL_KINDS = [
  'booking_confirmation',
  'booking_payment',
  'booking_reschedule',
  'booking_cancellation',
  'booking_expiry',
  'booking_reminder',
  'waitlist_offer',
  'membership_invitation',
  'webhook_disabled',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/**
 * The iCalendar invitation a booking mail carries, as facts: the SMTP sender's thread
 * writes it (calendar.ts) when it composes the message, off the request thread.
 */
export interface MailCalendar {
  method: 'REQUEST' | 'CANCEL';
  uid: string;
  sequence: number;
  /** DTSTAMP: the event's time, so a mail rendered again is the same object. */
  stamp: string;
  reservation: MailedReservation;
  branding: Branding;
  serviceName: string | null;
  /** The organiser's address: the organisation's email, else the sender's. */
  organizerEmail: string;
  attendeeEmail: string;
}

/** One message to one recipient, ready to send: its words as facts, rendered by the sender's thread. */
export interface Mail {
  /**
   * The dedupe key: `<event id>/<kind>/<recipient>`. A mail with a key already sent is
   * not sent again, and its Message-ID derives from it, so a resend after a crash is
   * recognisably the same message.
   */
  key: string;
  kind: MailKind;
  eventId: string | null;
  organisationId: number | null;
  to: string;
  /** The sender's display name (the organisation's name); the address is MAIL_FROM's. */
  fromName: string | null;
  replyTo: string | null;
  subject: string;
  body: MailBody;
  calendar: MailCalendar | null;
}

/**
 * What mail reads of a customer: whom to write to, in which language and zone (none on events
 * stored before they existed); other fields (their answers to a type's questions) are not its
 * to read.
 */
const mailedCustomer = z.object({
  name: z.string().optional(),
  email: z.string().optional(),
  locale: z.string().nullable().optional(),
  timeZone: z.string().nullable().optional(),
});

/** The part of a reservation record (as GET /api/reservations/:id answers it) mail reads. */
export const mailedReservation = z.object({
  id: z.number().int(),
  /** What the customer sees instead of the id; none on events stored before it existed. */
  reference: z.string().nullable().optional(),
  resourceTypeId: z.number().int().nullable(),
  status: z.enum(['held', 'pending_payment', 'confirmed', 'cancelled', 'expired']),
  startTime: z.string(),
  endTime: z.string(),
  customer: mailedCustomer,
  notes: z.string().nullable().optional(),
  priceAmount: z.number().int().nullable().optional(),
  priceCurrency: z.string().nullable().optional(),
  expiresAt: z.string().nullable().optional(),
  seriesId: z.number().int().nullable().optional(),
  payment: z
    .object({
      status: z.string(),
      amount: z.number().int(),
      currency: z.string(),
      checkoutUrl: z.string().nullable(),
      expiresAt: z.string().nullable(),
    })
    .nullable()
    .optional(),
});
export type MailedReservation = z.infer<typeof mailedReservation>;

/** The part of a waitlist entry record (waitlist.offered) mail reads: the offer's hold, as the entry tells it. */
export const mailedWaitlistOffer = z.object({
  resourceTypeId: z.number().int(),
  startTime: z.string(),
  endTime: z.string(),
  customer: mailedCustomer,
  offer: z.object({ reservationId: z.number().int(), expiresAt: z.string().nullable() }),
});
export type MailedWaitlistOffer = z.infer<typeof mailedWaitlistOffer>;

/** The part of an invitation record (membership.invited) mail reads; the address is looked up. */
export const mailedInvitation = z.object({
  invitationId: z.number().int(),
  organisationId: z.number().int(),
  role: z.string(),
  expiresAt: z.string(),
  email: z.string().optional(),
});
export type MailedInvitation = z.infer<typeof mailedInvitation>;

/** The part of a webhook record (webhook.disabled) mail reads. */
export const mailedWebhook = z.object({
  id: z.number().int(),
  url: z.string(),
  description: z.string().nullable(),
  disabledAt: z.string(),
});
export type MailedWebhook = z.infer<typeof mailedWebhook>;

/** What the mails show of an organisation: its name and branding. */
export interface Branding {
  name: string;
  email: string | null;
  address: string | null;
  logoUrl: string | null;
  /** `#rrggbb`; the house colour when the organisation has none. */
  color: string;
  timezone: string;
  /** The language of its customer mails when the customer chose none; `en` when not given. */
  defaultLocale?: string;
}

/** What the drain did: events read, mails sent, and whether it stopped on a failure. */
export interface DrainResult {
  events: number;
  sent: number;
  failed: number;
  /** It stopped early: the SMTP server failed, or another instance holds a mail in flight. */
  stopped: boolean;
}
