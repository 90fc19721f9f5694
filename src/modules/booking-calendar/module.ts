import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { bookingCalendar } from './migrations/0031_booking_calendar.js';
import { bookingCalendarPrivacy } from './privacy.js';
import type { BookingCalendarTables } from './repo.js';
import {
  BOOKING_CALENDAR_JOB,
  type BookingCalendarService,
  createBookingCalendarService,
} from './service.js';

declare module '../../module.js' {
  interface Services {
    bookingCalendar: BookingCalendarService;
  }
}

declare module '../../db/types.js' {
  interface Database extends BookingCalendarTables {}
}

/** Bookings on the manager's calendar (issue 26). */
export const bookingCalendarModule = defineModule({
  name: 'bookingCalendar',
  tables: ['bookingCalendarPositions'],
  service: (deps, services) =>
    createBookingCalendarService({
      ...deps,
      outbox: services.outbox,
      events: services.events,
      calendars: services.calendars,
    }),
  privacy: bookingCalendarPrivacy,
  migrations: { '0031_booking_calendar': bookingCalendar },
  // The outbox's new events run the mirror promptly; this catches up what they missed.
  jobs: ({ mirror }) => [sweep(BOOKING_CALENDAR_JOB, 5, mirror)],
});
