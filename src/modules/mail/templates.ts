import type { Branding, MailedInvitation, MailedReservation, MailedWebhook } from './schemas.js';

/**
 * The mails' words, in plain text and HTML, with the organisation's branding (name,
 * logo, colour). Pure: the service gathers the records, this only renders them. Every
 * value that came from a person is escaped in the HTML; nothing here builds a header.
 */

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export interface Content {
  subject: string;
  heading: string;
  paragraphs: string[];
  details: Array<[label: string, value: string]>;
  action?: { label: string; url: string };
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

/** Only http(s) links are ever rendered as links (a stored URL is data, not markup). */
const safeUrl = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

/**
 * A time's calendar fields in a zone, read by `Intl` formatters made once a zone (luxon's
 * `toFormat` cost a mail about 100 µs of the thread's rendering); a zone the runtime does not
 * know reads in UTC rather than costing the mail.
 */
interface ZonedTime {
  weekday: string;
  day: string;
  month: string;
  year: string;
  hour: string;
  minute: string;
}
interface ZoneFormats {
  /** The zone the times are read in: the one asked for, or UTC for one the runtime does not know. */
  zone: string;
  /** `2 March 2027`, by `format` (about 2 µs): the subject's, written on the request thread. */
  day: Intl.DateTimeFormat;
  /** Every field, by `formatToParts` (about 5 µs): the words', written on the sender's thread. */
  fields: Intl.DateTimeFormat;
}
const zoneFormats = new Map<string, ZoneFormats>();
function formatsOf(zone: string): ZoneFormats {
  let formats = zoneFormats.get(zone);
  if (!formats) {
    const day = { day: 'numeric', month: 'long', year: 'numeric' } as const;
    const fields = { ...day, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
    let timeZone = zone;
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone });
    } catch {
      timeZone = 'UTC';
    }
    formats = {
      zone: timeZone,
      day: new Intl.DateTimeFormat('en-GB', { ...day, timeZone }),
      fields: new Intl.DateTimeFormat('en-GB', { ...fields, timeZone }),
    };
    // Zones come from organisations' settings: a bound keeps a stray one from growing it.
    if (zoneFormats.size < 1_000) zoneFormats.set(zone, formats);
  }
  return formats;
}

/** `iso` as a Date, or null for a time it cannot read (shown as stored, never thrown: a throw fails the mail). */
function readTime(iso: string): Date | null {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The fields of `iso` in `zone`, or null for a time it cannot read. */
function zoned(iso: string, zone: string): ZonedTime | null {
  const at = readTime(iso);
  if (!at) return null;
  const time: Record<string, string> = {};
  for (const { type, value } of formatsOf(zone).fields.formatToParts(at)) time[type] = value;
  return time as unknown as ZonedTime;
}

const dayText = (t: ZonedTime) => `${t.day} ${t.month} ${t.year}`;
const clockText = (t: ZonedTime) => `${t.hour}:${t.minute}`;

/** `Tuesday 2 March 2027, 10:00–11:00 (Europe/Berlin)`, in the organisation's zone. */
export function formatSpan(startIso: string, endIso: string, zone: string): string {
  const start = zoned(startIso, zone);
  const end = zoned(endIso, zone);
  const shown = formatsOf(zone).zone;
  if (!start || !end) return `${startIso}–${endIso} (${shown})`;
  const endText =
    dayText(end) === dayText(start) ? clockText(end) : `${end.weekday} ${dayText(end)}, ${clockText(end)}`;
  return `${start.weekday} ${dayText(start)}, ${clockText(start)}–${endText} (${shown})`;
}

/** `2 March 2027, 10:00 (Europe/Berlin)`. */
export function formatInstant(iso: string, zone: string): string {
  const at = zoned(iso, zone);
  return `${at ? `${dayText(at)}, ${clockText(at)}` : iso} (${formatsOf(zone).zone})`;
}

/** Integer minor units as the currency shows them: 1250 EUR is €12.50, 1250 JPY is ¥1,250. */
export function formatMoney(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency.toUpperCase()} (minor units)`;
  }
}

/** A mail's text and HTML around its content, under a branding's name, colour and footer. */
export function layout(branding: Branding, content: Content): Rendered {
  const footer = [branding.name, branding.address, branding.email].filter(Boolean).join(' · ');
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...content.details.map(([label, value]) => `${label}: ${value}`),
    ...(content.action ? ['', `${content.action.label}: ${content.action.url}`] : []),
    '',
    '-- ',
    footer,
    '',
  ].join('\n');

  const colour = /^#[0-9a-f]{6}$/i.test(branding.color) ? branding.color : '#2563eb';
  const logo = safeUrl(branding.logoUrl);
  const action = content.action && safeUrl(content.action.url);
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5;padding:24px 0">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${colour};padding:20px 24px;color:#ffffff;font-size:20px;font-weight:bold">${
    logo
      ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(branding.name)}" height="40" style="height:40px;vertical-align:middle;margin-right:12px">`
      : ''
  }${escapeHtml(branding.name)}</td></tr>
<tr><td style="padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map((paragraph) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(paragraph)}</p>`).join('\n')}
${
  content.details.length
    ? `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:16px 0;border-collapse:collapse">
${content.details
  .map(
    ([label, value]) =>
      `<tr><td style="padding:4px 16px 4px 0;color:#71717a;vertical-align:top">${escapeHtml(label)}</td><td style="padding:4px 0">${escapeHtml(value)}</td></tr>`,
  )
  .join('\n')}
</table>`
    : ''
}
${
  action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action)}" style="background:${colour};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(content.action!.label)}</a></p>`
    : ''
}
</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #e4e4e7;color:#71717a;font-size:12px">${escapeHtml(footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  return { subject: content.subject, text, html };
}

export interface BookingMailInput {
  branding: Branding;
  reservation: MailedReservation;
  /** The booked service's name, when its type still exists. */
  serviceName: string | null;
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
function dayOf(input: BookingMailInput): string {
  const start = readTime(input.reservation.startTime);
  return start ? formatsOf(input.branding.timezone).day.format(start) : input.reservation.startTime;
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
  | 'booking_hold'
  | 'booking_reschedule'
  | 'booking_cancellation'
  | 'booking_expiry';

/** A template: its subject apart (cheap, needed first), and the rest of what it says. */
interface Template<Input> {
  subject(input: Input): string;
  content(input: Input): Omit<Content, 'subject'>;
}

/** A booking mail: its subject from the organisation's name and the day, a greeting, what happened, the booking's details. */
function booking(
  subject: (name: string, day: string) => string,
  heading: string,
  paragraphs: (input: BookingMailInput) => string[],
): Template<BookingMailInput> {
  return {
    subject: (input) => subject(input.branding.name, dayOf(input)),
    content: (input) => ({
      heading,
      paragraphs: [greeting(input.reservation), ...paragraphs(input)],
      details: bookingDetails(input),
    }),
  };
}

/** A hold keeps the time until it lapses; a paid one waits for the payment at its checkout. */
const hold: Template<BookingMailInput> = {
  subject: (input) =>
    input.reservation.status === 'pending_payment'
      ? `${input.branding.name}: complete your payment to confirm your booking on ${dayOf(input)}`
      : `${input.branding.name}: your booking on ${dayOf(input)} is held`,
  content(input) {
    const { branding, reservation } = input;
    const until = reservation.payment?.expiresAt ?? reservation.expiresAt ?? null;
    const untilText = until ? formatInstant(until, branding.timezone) : null;
    if (reservation.status === 'pending_payment') {
      const checkoutUrl = safeUrl(reservation.payment?.checkoutUrl);
      return {
        heading: 'Complete your payment',
        paragraphs: [
          greeting(reservation),
          untilText
            ? `${branding.name} is keeping this time for you until ${untilText}. Pay before then to confirm your booking.`
            : `${branding.name} is keeping this time for you. Pay to confirm your booking.`,
          ...(checkoutUrl ? [] : ['The payment link follows in a separate message.']),
        ],
        details: bookingDetails(input),
        ...(checkoutUrl ? { action: { label: 'Pay now', url: checkoutUrl } } : {}),
      };
    }
    return {
      heading: 'Your time is held',
      paragraphs: [
        greeting(reservation),
        untilText
          ? `${branding.name} is holding this time for you until ${untilText}. It is not booked until it is confirmed.`
          : `${branding.name} is holding this time for you. It is not booked until it is confirmed.`,
      ],
      details: bookingDetails(input),
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
      `${branding.name} has confirmed your booking. The calendar invitation attached adds it to your calendar.`,
    ],
  ),
  booking_hold: hold,
  booking_reschedule: booking(
    (name, day) => `${name}: your booking has moved to ${day}`,
    'Your booking has moved',
    ({ branding }) => [
      `${branding.name} has moved your booking to a new time, shown below. The calendar invitation attached updates your calendar.`,
    ],
  ),
  booking_cancellation: booking(
    (name, day) => `${name}: your booking on ${day} is cancelled`,
    'Your booking is cancelled',
    ({ branding, reservation }) => [
      `Your booking with ${branding.name} is cancelled; the time is free again.`,
      ...(reservation.payment?.status === 'refunded' ? ['Your payment has been refunded.'] : []),
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
