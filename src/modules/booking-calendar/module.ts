import { defineModule } from '../../module.js';
import { bookingCalendar } from './migrations/0031_booking_calendar.js';
import { bookingCalendarPrivacy } from './privacy.js';
import type { BookingCalendarTables } from './repo.js';
import { type BookingCalendarService, createBookingCalendarService } from './service.js';

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
});
