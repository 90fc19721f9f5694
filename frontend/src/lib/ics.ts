// A reservation as an iCalendar file (RFC 5545), made in the browser: no API route exists for
// it, and everything it holds is already on the page. The text rules are the service's own
// (src/lib/icalendar.ts), which its booking mails' invitations use too.
import { icsDocument, icsText, icsUtc, reservationUid } from '../../../src/lib/icalendar.js';

export interface IcsEvent {
  reservationId: number;
  /** The host name (no port) the page was served from: the service's own, as in its mails' UIDs. */
  host: string;
  start: string;
  end: string;
  summary: string;
  description?: string | undefined;
  url?: string | undefined;
  /** Now, as the file's DTSTAMP. */
  stamp: string;
}

export function icsOf(event: IcsEvent): string {
  return icsDocument([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//reservation-service//booking page//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'BEGIN:VEVENT',
    // The UID of the reservation's mails too: one calendar entry, which a cancellation removes.
    `UID:${reservationUid(event.reservationId, event.host)}`,
    `DTSTAMP:${icsUtc(event.stamp)}`,
    `DTSTART:${icsUtc(event.start)}`,
    `DTEND:${icsUtc(event.end)}`,
    `SUMMARY:${icsText(event.summary)}`,
    ...(event.description ? [`DESCRIPTION:${icsText(event.description)}`] : []),
    ...(event.url ? [`URL:${event.url}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
}
