import { noPersonalData, type PrivacyDeclaration } from '../../privacy/declaration.js';

/** The mirror's outbox position: an id, no person (the mirrors themselves are events, events/privacy.ts). */
export const bookingCalendarPrivacy: PrivacyDeclaration = {
  module: 'booking-calendar',
  tables: {
    booking_calendar_positions: noPersonalData('The outbox event id the booking calendar mirror has reached'),
  },
  categories: [],
  holdings: async () => ({}),
  exports: [],
  erase: async () => ({}),
};
