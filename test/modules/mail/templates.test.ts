// A mail's subject, written on the request thread where its mail is claimed: the booking's
// day in the organisation's zone, not the server's or UTC's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Branding, MailedReservation } from '../../../src/modules/mail/schemas.js';
import { formatInstant, formatSpan, subjectOf } from '../../../src/modules/mail/templates.js';

const reservation: MailedReservation = {
  id: 7,
  resourceTypeId: 1,
  status: 'confirmed',
  // 23:30 in UTC on the 1st is already the 2nd in Berlin and still the 1st in New York.
  startTime: '2027-03-01T23:30:00.000Z',
  endTime: '2027-03-02T00:30:00.000Z',
  customer: { email: 'kim@example.test' },
};
const branding = (timezone: string): Branding => ({
  name: 'Studio',
  email: null,
  address: null,
  logoUrl: null,
  color: '#2563eb',
  timezone,
});
const confirmation = (timezone: string) =>
  subjectOf({
    template: 'booking_confirmation',
    input: { branding: branding(timezone), reservation, serviceName: 'Lesson' },
  });

test("a booking's subject names its day in the organisation's zone", () => {
  assert.equal(confirmation('Europe/Berlin'), 'Studio: your booking on 2 March 2027 is confirmed');
  assert.equal(confirmation('America/New_York'), 'Studio: your booking on 1 March 2027 is confirmed');
  // A zone the runtime does not know still gets its mail, with the day in UTC.
  assert.equal(confirmation('Mars/Olympus_Mons'), 'Studio: your booking on 1 March 2027 is confirmed');
  // A time it cannot read is shown as stored, not thrown: a throw would stop the drain at its event.
  assert.equal(
    subjectOf({
      template: 'booking_confirmation',
      input: {
        branding: branding('UTC'),
        reservation: { ...reservation, startTime: 'soon' },
        serviceName: 'Lesson',
      },
    }),
    'Studio: your booking on soon is confirmed',
  );
});

test("a booking's times in the words: its zone's day and clock, across midnight, and a zone it cannot read named as UTC", () => {
  const { startTime, endTime } = reservation;
  assert.equal(
    formatSpan(startTime, endTime, 'Europe/Berlin'),
    'Tuesday 2 March 2027, 00:30–01:30 (Europe/Berlin)',
  );
  // Monday 23:30 to Tuesday 00:30 in UTC: the end names its own day.
  assert.equal(
    formatSpan(startTime, endTime, 'UTC'),
    'Monday 1 March 2027, 23:30–Tuesday 2 March 2027, 00:30 (UTC)',
  );
  // Summer time: the same instant two hours ahead in Berlin.
  assert.equal(
    formatInstant('2027-07-01T08:00:00.000Z', 'Europe/Berlin'),
    '1 July 2027, 10:00 (Europe/Berlin)',
  );
  // Not a zone the runtime knows: the times are UTC's and say so, rather than a zone they are not in.
  assert.equal(formatInstant('2027-07-01T08:00:00.000Z', 'Mars/Olympus_Mons'), '1 July 2027, 08:00 (UTC)');
  assert.equal(formatSpan('soon', endTime, 'UTC'), `soon–${endTime} (UTC)`);
});
