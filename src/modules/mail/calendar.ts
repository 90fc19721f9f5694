import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
} from 'ical-generator';
import type { MailCalendar } from './schemas.js';

/**
 * The iCalendar invitation of a booking mail (RFC 5545/5546). One UID per reservation,
 * for the life of the reservation, so every later mail updates the same calendar entry;
 * SEQUENCE counts its reschedules (the service keeps the count), a CANCEL one above.
 */

/** `reservation-<id>@<host>`: stable for the reservation, unique across deployments by host. */
export function reservationUid(reservationId: number, host: string): string {
  return `reservation-${reservationId}@${host}`;
}

/** The calendar part of a message: its RFC 5546 method goes in the MIME type too. */
export interface CalendarPart {
  method: 'REQUEST' | 'CANCEL';
  filename: string;
  content: string;
}

export function bookingCalendar(input: MailCalendar): CalendarPart {
  const { reservation, branding } = input;
  const calendar = ical({
    prodId: { company: 'reservation-service', product: 'mail', language: 'EN' },
    method: input.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: input.uid,
    sequence: input.sequence,
    stamp: new Date(input.stamp),
    start: new Date(reservation.startTime),
    end: new Date(reservation.endTime),
    summary: input.serviceName ? `${input.serviceName} at ${branding.name}` : `Booking at ${branding.name}`,
    description: `Booking #${reservation.id} with ${branding.name}`,
    location: branding.address,
    status: input.method === 'CANCEL' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: branding.name, email: input.organizerEmail },
    attendees: [
      {
        email: input.attendeeEmail,
        name: reservation.customer.name || undefined,
        role: ICalAttendeeRole.REQ,
        status: input.method === 'CANCEL' ? ICalAttendeeStatus.DECLINED : ICalAttendeeStatus.ACCEPTED,
        rsvp: false,
      },
    ],
  });
  return {
    method: input.method,
    filename: input.method === 'CANCEL' ? 'cancel.ics' : 'invite.ics',
    content: calendar.toString(),
  };
}
