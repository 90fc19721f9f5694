import { type Locale, localeOf } from '../../i18n/locales.js';
import { type MailKey, type MailTranslator, mailTranslator } from '../../i18n/translate.js';
import { googleCalendarUrl, outlookCalendarUrl } from '../../lib/calendar-links.js';
import { zoneName } from '../../lib/time-zones.js';
import { formatDay, formatInstant, formatMoney, formatSpan } from './formats.js';
import { type Content, safeUrl } from './layout.js';
import type { Branding, MailedReservation } from './schemas.js';

/**
 * The customer's booking mails' words (DECISIONS.md "Booking everywhere"), in the customer's
 * language (`customer.locale`, else the organisation's `defaultLocale`, else `en`) with times
 * in their zone (`customer.timeZone`, else the organisation's), which the times name. The
 * words are the `mail` catalogues' (src/i18n/locales); dates, times and prices are `Intl`'s.
 */

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

export type BookingTemplate =
  | 'booking_confirmation'
  | 'booking_payment'
  | 'booking_reschedule'
  | 'booking_cancellation'
  | 'booking_expiry'
  | 'booking_reminder'
  | 'waitlist_offer';

/** How a customer's mail is written: its words' language and the zone its times are shown in. */
export interface CustomerWords {
  locale: Locale;
  zone: string;
  t: MailTranslator;
}

/** The language and zone of the mails to a reservation's customer. */
export function customerWordsOf({
  reservation,
  branding,
}: Pick<BookingMailInput, 'reservation' | 'branding'>): CustomerWords {
  const { locale: given, timeZone } = reservation.customer;
  const locale = localeOf(given, branding.defaultLocale);
  // A zone the runtime does not know (a stray customer_info field) shows the organisation's times.
  const zone = timeZone && zoneName(timeZone) ? timeZone : branding.timezone;
  return { locale, zone, t: mailTranslator(locale) };
}

function bookingDetails(input: BookingMailInput, { t, locale, zone }: CustomerWords): Content['details'] {
  const { reservation, serviceName } = input;
  const details: Content['details'] = [];
  if (serviceName) details.push([t('details.service'), serviceName]);
  details.push([t('details.when'), formatSpan(reservation.startTime, reservation.endTime, zone, locale)]);
  if (reservation.customer.name) details.push([t('details.name'), reservation.customer.name]);
  const price = reservation.payment ?? null;
  if (price) details.push([t('details.price'), formatMoney(price.amount, price.currency, locale)]);
  else if (reservation.priceAmount != null && reservation.priceCurrency)
    details.push([
      t('details.price'),
      formatMoney(reservation.priceAmount, reservation.priceCurrency, locale),
    ]);
  // The public reference, never the id: an id would tell how many bookings the business has.
  if (reservation.reference) details.push([t('details.reference'), reservation.reference]);
  return details;
}

const greeting = (reservation: MailedReservation, { t }: CustomerWords) =>
  reservation.customer.name ? t('greeting', { name: reservation.customer.name }) : t('greetingNoName');

/** The subject's values: the organisation's name and the booking's day in the customer's zone. */
const subjectValues = (input: BookingMailInput, { locale, zone }: CustomerWords) => ({
  organisation: input.branding.name,
  day: formatDay(input.reservation.startTime, zone, locale),
});

/** The customer's link to their booking, as a mail's action. */
const manageAction = (input: BookingMailInput, { t }: CustomerWords) => {
  const url = safeUrl(input.manageUrl);
  return url ? { label: t('manage'), url } : undefined;
};

/**
 * "Add to calendar" links of the two large web calendars, beside the invitation the mail
 * carries (or, in a reminder, instead of one). The event says what the .ics says; the manage
 * link stays out of it, so its token is not handed to a calendar provider.
 */
function calendarLinks(input: BookingMailInput, { t }: CustomerWords): Content['moreLinks'] {
  const { branding, reservation, serviceName } = input;
  const organisation = branding.name;
  const reference = reservation.reference;
  const event = {
    title: serviceName
      ? t('calendar.summaryOfService', { service: serviceName, organisation })
      : t('calendar.summary', { organisation }),
    start: reservation.startTime,
    end: reservation.endTime,
    details: reference
      ? t('calendar.descriptionWithReference', { reference, organisation })
      : t('calendar.description', { organisation }),
    location: branding.address ?? undefined,
  };
  return [
    { label: t('calendar.addToGoogle'), url: googleCalendarUrl(event) },
    { label: t('calendar.addToOutlook'), url: outlookCalendarUrl(event) },
  ];
}

/** A template: its subject apart (cheap, needed first), and the rest of what it says. */
export interface Template<Input> {
  subject(input: Input): string;
  content(input: Input): Omit<Content, 'subject'>;
}

type Section = 'confirmation' | 'reschedule' | 'cancellation' | 'expiry' | 'reminder';

/**
 * A booking mail: its subject from the organisation's name and the day, a greeting, what
 * happened, the booking's details, and the customer's manage link.
 */
function booking(
  section: Section,
  paragraphs: (input: BookingMailInput, words: CustomerWords) => string[],
  options: { calendarLinks?: boolean } = {},
): Template<BookingMailInput> {
  return {
    subject: (input) => {
      const words = customerWordsOf(input);
      return words.t(`${section}.subject`, subjectValues(input, words));
    },
    content: (input) => {
      const words = customerWordsOf(input);
      const action = manageAction(input, words);
      return {
        lang: words.locale,
        heading: words.t(`${section}.heading`),
        paragraphs: [greeting(input.reservation, words), ...paragraphs(input, words)],
        details: bookingDetails(input, words),
        ...(action ? { action } : {}),
        ...(options.calendarLinks ? { moreLinks: calendarLinks(input, words) } : {}),
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

/** When a hold or an unpaid booking stops keeping its time, in the customer's zone. */
function deadlineOf({ reservation }: BookingMailInput, { zone, locale }: CustomerWords): string | null {
  const until = reservation.payment?.expiresAt ?? reservation.expiresAt ?? null;
  return until ? formatInstant(until, zone, locale) : null;
}

type DeadlineSection = 'payment' | 'waitlistOffer';

/** A time kept for the customer until a deadline: the paragraph naming it, and a detail row. */
function keptUntil(input: BookingMailInput, words: CustomerWords, section: DeadlineSection, label: MailKey) {
  const deadline = deadlineOf(input, words);
  const organisation = input.branding.name;
  return {
    paragraph: deadline
      ? words.t(`${section}.untilDeadline`, { organisation, deadline })
      : words.t(`${section}.noDeadline`, { organisation }),
    details: deadline ? [[words.t(label), deadline] as [string, string]] : [],
  };
}

/**
 * A paid booking waiting at its checkout: the one mail before its confirmation. It names
 * the deadline; its action pays, and the manage link follows it.
 */
const payment: Template<BookingMailInput> = {
  subject: (input) => {
    const words = customerWordsOf(input);
    return words.t('payment.subject', subjectValues(input, words));
  },
  content(input) {
    const words = customerWordsOf(input);
    const kept = keptUntil(input, words, 'payment', 'details.payBy');
    const checkoutUrl = safeUrl(input.reservation.payment?.checkoutUrl);
    const manage = manageAction(input, words);
    const pay = checkoutUrl ? { label: words.t('payNow'), url: checkoutUrl } : manage;
    return {
      lang: words.locale,
      heading: words.t('payment.heading'),
      paragraphs: [
        greeting(input.reservation, words),
        kept.paragraph,
        ...(checkoutUrl ? [] : [words.t('payment.fromPage')]),
      ],
      details: [...bookingDetails(input, words), ...kept.details],
      ...(pay ? { action: pay } : {}),
      ...(checkoutUrl && manage ? { link: manage } : {}),
    };
  },
};

/** A waitlist entry's offer: the freed time is held for the customer until the offer's deadline. */
const waitlistOffer: Template<BookingMailInput> = {
  subject: (input) => {
    const words = customerWordsOf(input);
    return words.t('waitlistOffer.subject', subjectValues(input, words));
  },
  content(input) {
    const words = customerWordsOf(input);
    const kept = keptUntil(input, words, 'waitlistOffer', 'details.confirmBy');
    const action = manageAction(input, words);
    return {
      lang: words.locale,
      heading: words.t('waitlistOffer.heading'),
      paragraphs: [
        greeting(input.reservation, words),
        kept.paragraph,
        ...(action ? [] : [words.t('waitlistOffer.contact', { organisation: input.branding.name })]),
      ],
      details: [...bookingDetails(input, words), ...kept.details],
      ...(action ? { action } : {}),
    };
  },
};

export const BOOKING_TEMPLATES: { [K in BookingTemplate]: Template<BookingMailInput> } = {
  booking_confirmation: booking(
    'confirmation',
    ({ branding }, { t }) => [t('confirmation.body', { organisation: branding.name })],
    { calendarLinks: true },
  ),
  booking_payment: payment,
  waitlist_offer: waitlistOffer,
  booking_reschedule: booking(
    'reschedule',
    ({ branding }, { t }) => [t('reschedule.body', { organisation: branding.name })],
    { calendarLinks: true },
  ),
  booking_reminder: booking(
    'reminder',
    (input, words) => {
      const organisation = input.branding.name;
      const start = formatInstant(input.reservation.startTime, words.zone, words.locale);
      return [
        words.t('reminder.body', { organisation, start }),
        manageAction(input, words)
          ? words.t('reminder.manage')
          : words.t('reminder.contact', { organisation }),
      ];
    },
    { calendarLinks: true },
  ),
  booking_cancellation: booking('cancellation', ({ branding, reservation }, { t }) => [
    t('cancellation.body', { organisation: branding.name }),
    ...(refundedWith(reservation) ? [t('cancellation.refunded')] : []),
  ]),
  booking_expiry: booking('expiry', ({ branding, reservation }, { t }) => [
    t(reservation.payment ? 'expiry.paymentLapsed' : 'expiry.holdLapsed', { organisation: branding.name }),
    t('expiry.again'),
  ]),
};
