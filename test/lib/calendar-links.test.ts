// "Add to calendar" links (src/lib/calendar-links.ts): every value encoded, times in UTC, empty
// values left out, so a name with & or # never breaks the link.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { googleCalendarUrl, outlookCalendarUrl } from '../../src/lib/calendar-links.js';

const event = {
  title: 'Cut & colour #2 at Salon',
  start: '2027-03-01T09:30:00+01:00',
  end: '2027-03-01T09:30:00.000Z',
  details: 'Booking AB12CD34 with Salon',
};

test('Google Calendar: the template form with the title, UTC dates and details', () => {
  const url = new URL(googleCalendarUrl(event));
  assert.equal(url.origin + url.pathname, 'https://calendar.google.com/calendar/render');
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    action: 'TEMPLATE',
    text: 'Cut & colour #2 at Salon',
    dates: '20270301T083000Z/20270301T093000Z',
    details: 'Booking AB12CD34 with Salon',
  });
});

test('Outlook on the web: the compose form with UTC start and end to the second', () => {
  const url = new URL(outlookCalendarUrl({ ...event, location: '1 Main Street' }));
  assert.equal(url.origin + url.pathname, 'https://outlook.live.com/calendar/0/action/compose');
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    rru: 'addevent',
    subject: 'Cut & colour #2 at Salon',
    startdt: '2027-03-01T08:30:00Z',
    enddt: '2027-03-01T09:30:00Z',
    body: 'Booking AB12CD34 with Salon',
    location: '1 Main Street',
  });
  assert.ok(!outlookCalendarUrl({ ...event, details: undefined }).includes('body='), 'no empty body');
});
