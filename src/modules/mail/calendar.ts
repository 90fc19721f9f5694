import { icsDocument, icsParam, icsText, icsUtc } from '../../lib/icalendar.js';
import { customerWordsOf } from './booking-templates.js';
import { formatSpan } from './formats.js';
import type { MailCalendar } from './schemas.js';

export { reservationUid } from '../../lib/icalendar.js';

/**
 * The iCalendar invitation of a booking mail (RFC 5545/5546). One UID per reservation,
 * for the life of the reservation, so every later mail updates the same calendar entry;
 * SEQUENCE counts its reschedules (the service keeps the count), a CANCEL one above. Its
 * times are UTC; its words are in the customer's language, and its description names the time
 * in the customer's zone (`14:00 (Europe/Berlin)`), as the mail does.
 */

/** The calendar part of a message: its RFC 5546 method goes in the MIME type too. */
export interface CalendarPart {
  method: 'REQUEST' | 'CANCEL';
  filename: string;
  content: string;
}

/** Writes the invitation; throws a RangeError for a time it cannot read (the mail fails for good). */
export function bookingCalendar(input: MailCalendar): CalendarPart {
  const { reservation, branding } = input;
  const cancelled = input.method === 'CANCEL';
  const attendeeName = reservation.customer.name ? `;CN=${icsParam(reservation.customer.name)}` : '';
  const { t, zone, locale } = customerWordsOf(input);
  const organisation = branding.name;
  const summary = input.serviceName
    ? t('calendar.summaryOfService', { service: input.serviceName, organisation })
    : t('calendar.summary', { organisation });
  const booking = reservation.reference
    ? t('calendar.descriptionWithReference', { reference: reservation.reference, organisation })
    : t('calendar.description', { organisation });
  const when = t('calendar.when', {
    when: formatSpan(reservation.startTime, reservation.endTime, zone, locale),
  });
  const content = icsDocument([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//reservation-service//mail//EN',
    `METHOD:${input.method}`,
    'BEGIN:VEVENT',
    `UID:${input.uid}`,
    `SEQUENCE:${input.sequence}`,
    `DTSTAMP:${icsUtc(input.stamp)}`,
    `DTSTART:${icsUtc(reservation.startTime)}`,
    `DTEND:${icsUtc(reservation.endTime)}`,
    `SUMMARY:${icsText(summary)}`,
    ...(branding.address ? [`LOCATION:${icsText(branding.address)}`] : []),
    `DESCRIPTION:${icsText(`${booking}\n${when}`)}`,
    `ORGANIZER;CN=${icsParam(branding.name)}:mailto:${input.organizerEmail}`,
    `ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=${cancelled ? 'DECLINED' : 'ACCEPTED'};RSVP=FALSE${attendeeName}:mailto:${input.attendeeEmail}`,
    `STATUS:${cancelled ? 'CANCELLED' : 'CONFIRMED'}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
  return { method: input.method, filename: cancelled ? 'cancel.ics' : 'invite.ics', content };
}
