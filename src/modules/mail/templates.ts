import { googleCalendarUrl, outlookCalendarUrl } from '../../lib/calendar-links.js';
import { formatDay, formatInstant, formatMoney, formatSpan } from './formats.js';
import { type Content, layout, type Rendered, safeUrl } from './layout.js';
import type { Branding, MailedInvitation, MailedReservation, MailedWebhook } from './schemas.js';

/**
 * The mails' words, as templates over the facts the service gathered (layout.ts frames
 * them). Pure: the service gathers the records, this only renders them.
 */

export { formatInstant, formatMoney, formatSpan } from './formats.js';

export interface BookingMailInput {
  branding: Branding;
  /** The reservation; a waitlist offer's is its hold, as the entry tells it. */
  reservation: MailedReservation;
  /** The booked service's name, when its type still exists. */
  serviceName: string | null;
  /**
   * The customer's manage page (`<FRONTEND_URL>/manage/<token>`): unsealed only as the mail
   * is sent, never kept; absent while the mail is planned and claimed, and for a reservation
   * stored without a sealed token.
   */
  manageUrl?: string | null;
}

function bookingDetails({ branding, reservation, serviceName }: BookingMailInput): Content['details'] {
  const details: Content['details'] = [];
  if (serviceName) details.push(['Service', serviceName]);
  details.push(['When', formatSpan(reservation.startTime, reservation.endTime, branding.timezone)]);
  if (reservation.customer.name) details.push(['Name', reservation.customer.name]);
  const price = reservation.payment ?? null;
  if (price) details.push(['Price', formatMoney(price.amount, price.currency)]);
  else if (reservation.priceAmount != null && reservation.priceCurrency)
    details.push(['Price', formatMoney(reservation.priceAmount, reservation.priceCurrency)]);
  // The public reference, never the id: an id would tell how many bookings the business has.
  if (reservation.reference) details.push(['Reference', reservation.reference]);
  return details;
}

const greeting = (reservation: MailedReservation) =>
  reservation.customer.name ? `Hello ${reservation.customer.name},` : 'Hello,';

/** The booking's day in the organisation's zone, `2 March 2027`: its subject, written on the request thread. */
const dayOf = (input: BookingMailInput) => formatDay(input.reservation.startTime, input.branding.timezone);

const MANAGE_LABEL = 'Manage your booking';
/** The customer's link to their booking, as a mail's action. */
const manageAction = (input: BookingMailInput) => {
  const url = safeUrl(input.manageUrl);
  return url ? { label: MANAGE_LABEL, url } : undefined;
};

/**
 * "Add to calendar" links of the two large web calendars, beside the invitation the mail
 * carries (or, in a reminder, instead of one). The event says what the .ics says; the manage
 * link stays out of it, so its token is not handed to a calendar provider.
 */
function calendarLinks({ branding, reservation, serviceName }: BookingMailInput): Content['moreLinks'] {
  const event = {
    title: serviceName ? `${serviceName} at ${branding.name}` : `Booking at ${branding.name}`,
    start: reservation.startTime,
    end: reservation.endTime,
    details: `Booking ${reservation.reference ? `${reservation.reference} ` : ''}with ${branding.name}`,
    location: branding.address ?? undefined,
  };
  return [
    { label: 'Add to Google Calendar', url: googleCalendarUrl(event) },
    { label: 'Add to Outlook', url: outlookCalendarUrl(event) },
  ];
}

export interface InvitationMailInput {
  branding: Branding;
  invitation: MailedInvitation;
  inviterName: string | null;
  /** Where the invited person signs in and accepts. */
  acceptUrl: string;
}

export interface WebhookDisabledMailInput {
  branding: Branding;
  webhook: MailedWebhook;
  /** Where owners see the endpoint's delivery log and turn it on again. */
  manageUrl: string;
}

/** What a mail says, as facts: its subject is written where the mail is claimed, its text and
 * HTML on the SMTP sender's thread (`renderMail`), off the request thread. */
export type MailBody =
  | { template: BookingTemplate; input: BookingMailInput }
  | { template: 'membership_invitation'; input: InvitationMailInput }
  | { template: 'webhook_disabled'; input: WebhookDisabledMailInput };

export type BookingTemplate =
  | 'booking_confirmation'
  | 'booking_payment'
  | 'booking_reschedule'
  | 'booking_cancellation'
  | 'booking_expiry'
  | 'booking_reminder'
  | 'waitlist_offer';

/** A template: its subject apart (cheap, needed first), and the rest of what it says. */
interface Template<Input> {
  subject(input: Input): string;
  content(input: Input): Omit<Content, 'subject'>;
}

/**
 * A booking mail: its subject from the organisation's name and the day, a greeting, what
 * happened, the booking's details, and the customer's manage link.
 */
function booking(
  subject: (name: string, day: string) => string,
  heading: string,
  paragraphs: (input: BookingMailInput) => string[],
  options: { calendarLinks?: boolean } = {},
): Template<BookingMailInput> {
  return {
    subject: (input) => subject(input.branding.name, dayOf(input)),
    content: (input) => {
      const action = manageAction(input);
      return {
        heading,
        paragraphs: [greeting(input.reservation), ...paragraphs(input)],
        details: bookingDetails(input),
        ...(action ? { action } : {}),
        ...(options.calendarLinks ? { moreLinks: calendarLinks(input) } : {}),
      };
    },
  };
}

/**
 * Whether a cancellation came with its refund: recorded already, or a paid booking standing
 * alone, whose cancel refunds it in full before it is cancelled (one occurrence of a paid
 * series is let go without money back).
 */
const refundedWith = ({ payment, seriesId }: MailedReservation) =>
  payment?.status === 'refunded' || (payment?.status === 'paid' && !seriesId);

/** When a hold or an unpaid booking stops keeping its time, in the organisation's zone. */
function deadlineOf({ branding, reservation }: BookingMailInput): string | null {
  const until = reservation.payment?.expiresAt ?? reservation.expiresAt ?? null;
  return until ? formatInstant(until, branding.timezone) : null;
}

/**
 * A paid booking waiting at its checkout: the one mail before its confirmation. It names
 * the deadline; its action pays, and the manage link follows it.
 */
const payment: Template<BookingMailInput> = {
  subject: (input) =>
    `${input.branding.name}: complete your payment to confirm your booking on ${dayOf(input)}`,
  content(input) {
    const { branding, reservation } = input;
    const deadline = deadlineOf(input);
    const checkoutUrl = safeUrl(reservation.payment?.checkoutUrl);
    const manage = manageAction(input);
    const pay = checkoutUrl ? { label: 'Pay now', url: checkoutUrl } : manage;
    return {
      heading: 'Complete your payment',
      paragraphs: [
        greeting(reservation),
        deadline
          ? `${branding.name} is keeping this time for you until ${deadline}. Pay before then to confirm your booking; after that the time is free again.`
          : `${branding.name} is keeping this time for you. Pay to confirm your booking.`,
        ...(checkoutUrl ? [] : ['Pay from your booking page.']),
      ],
      details: [...bookingDetails(input), ...(deadline ? [['Pay by', deadline] as [string, string]] : [])],
      ...(pay ? { action: pay } : {}),
      ...(checkoutUrl && manage ? { link: manage } : {}),
    };
  },
};

/** A waitlist entry's offer: the freed time is held for the customer until the offer's deadline. */
const waitlistOffer: Template<BookingMailInput> = {
  subject: (input) => `${input.branding.name}: a time you waited for is free on ${dayOf(input)}`,
  content(input) {
    const { branding, reservation } = input;
    const deadline = deadlineOf(input);
    const action = manageAction(input);
    return {
      heading: 'A time you waited for is free',
      paragraphs: [
        greeting(reservation),
        deadline
          ? `${branding.name} is holding this time for you until ${deadline}. Confirm it before then to book it; after that it goes to the next person waiting.`
          : `${branding.name} is holding this time for you. Confirm it to book it.`,
        ...(action ? [] : [`Contact ${branding.name} to take it.`]),
      ],
      details: [
        ...bookingDetails(input),
        ...(deadline ? [['Confirm by', deadline] as [string, string]] : []),
      ],
      ...(action ? { action } : {}),
    };
  },
};

/** The facts a template renders. */
type InputOf<K extends MailBody['template']> = K extends BookingTemplate
  ? BookingMailInput
  : K extends 'membership_invitation'
    ? InvitationMailInput
    : WebhookDisabledMailInput;

const TEMPLATES: { [K in MailBody['template']]: Template<InputOf<K>> } = {
  booking_confirmation: booking(
    (name, day) => `${name}: your booking on ${day} is confirmed`,
    'Your booking is confirmed',
    ({ branding }) => [
      `${branding.name} has confirmed your booking. The calendar invitation attached (an .ics file) adds it to your calendar, as do the links below.`,
    ],
    { calendarLinks: true },
  ),
  booking_payment: payment,
  waitlist_offer: waitlistOffer,
  booking_reschedule: booking(
    (name, day) => `${name}: your booking has moved to ${day}`,
    'Your booking has moved',
    ({ branding }) => [
      `${branding.name} has moved your booking to a new time, shown below. The calendar invitation attached updates your calendar.`,
    ],
    { calendarLinks: true },
  ),
  booking_reminder: booking(
    (name, day) => `${name}: a reminder of your booking on ${day}`,
    'Your booking is coming up',
    (input) => [
      `This is a reminder of your booking with ${input.branding.name}, starting ${formatInstant(input.reservation.startTime, input.branding.timezone)}.`,
      manageAction(input)
        ? 'If you cannot come, change or cancel it from your booking page.'
        : `If you cannot come, tell ${input.branding.name}.`,
    ],
    { calendarLinks: true },
  ),
  booking_cancellation: booking(
    (name, day) => `${name}: your booking on ${day} is cancelled`,
    'Your booking is cancelled',
    ({ branding, reservation }) => [
      `Your booking with ${branding.name} is cancelled; the time is free again.`,
      ...(refundedWith(reservation) ? ['Your payment has been refunded in full.'] : []),
    ],
  ),
  booking_expiry: booking(
    (name, day) => `${name}: your hold on ${day} has expired`,
    'Your hold has expired',
    ({ branding, reservation }) => [
      reservation.payment
        ? `The time ${branding.name} kept for you has lapsed before the payment arrived, so it is not booked.`
        : `The time ${branding.name} held for you has lapsed before it was confirmed, so it is not booked.`,
      'You are welcome to book again.',
    ],
  ),
  membership_invitation: {
    subject: ({ branding, inviterName }) =>
      inviterName
        ? `${inviterName} invited you to join ${branding.name}`
        : `You are invited to join ${branding.name}`,
    content({ branding, invitation, inviterName, acceptUrl }) {
      const role = invitation.role.toLowerCase();
      return {
        heading: `Join ${branding.name}`,
        paragraphs: [
          'Hello,',
          `${inviterName ?? 'Someone'} invited you to join ${branding.name} as ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}.`,
          `Sign in with this email address and accept the invitation before ${formatInstant(invitation.expiresAt, branding.timezone)}. If you did not expect it, ignore this message.`,
        ],
        details: [],
        action: { label: 'See the invitation', url: acceptUrl },
      };
    },
  },
  webhook_disabled: {
    subject: ({ branding }) => `${branding.name}: a webhook endpoint was disabled`,
    content: ({ branding, webhook, manageUrl }) => ({
      heading: 'Webhook endpoint disabled',
      paragraphs: [
        'Hello,',
        `Deliveries to a webhook endpoint of ${branding.name} have failed for 3 days, so it was disabled on ${formatInstant(webhook.disabledAt, branding.timezone)}. Its pending deliveries were marked failed.`,
        'Fix the receiver, set the endpoint active again, and retry the failed deliveries from its delivery log.',
      ],
      details: [
        ['Endpoint', webhook.url],
        ...(webhook.description ? [['Description', webhook.description] as [string, string]] : []),
      ],
      action: { label: 'See the endpoint', url: manageUrl },
    }),
  },
};

/** The template of a body, typed by its input. */
const templateOf = (body: MailBody) => TEMPLATES[body.template] as Template<MailBody['input']>;

/** A mail's subject: all the drain needs of its words to claim it. */
export function subjectOf(body: MailBody): string {
  return templateOf(body).subject(body.input);
}

/** A mail's words in full, plain text and HTML. */
export function renderMail(body: MailBody): Rendered {
  const template = templateOf(body);
  return layout(body.input.branding, {
    subject: template.subject(body.input),
    ...template.content(body.input),
  });
}
