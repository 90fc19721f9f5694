// The reminder mail and "add to calendar" in booking mails (DECISIONS.md "Booking everywhere"):
// through HTTP, the reminder job's run under a fake clock (Date only), the real outbox and
// mail drain, and SMTP to the bundled catcher.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import {
  type CaughtMessage,
  type MailCatcher,
  startMailCatcher,
} from '../../../tools/emulators/mail/server.js';
import { createTestApp, type TestApp, uniqueEmail } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

/** Google's and Outlook's add-event links for 10:00-11:00 UTC of `day` (`20270301`). */
function calendarLinks(day: string) {
  const title = encodeURIComponent('Lesson at Reminder Studio');
  const iso = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
  return {
    google: `https://calendar.google.com/calendar/render?action=TEMPLATE&text=${title}&dates=${day}T100000Z%2F${day}T110000Z&details=`,
    outlook: `https://outlook.live.com/calendar/0/action/compose?rru=addevent&subject=${title}&startdt=${iso}T10%3A00%3A00Z&enddt=${iso}T11%3A00%3A00Z&body=`,
  };
}

describe('reminder mails and add-to-calendar links', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  let owner: OrgOwner;
  let roomId: number;

  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp({ SMTP_URL: catcher.smtpUrl });
    owner = await ownerWithOrganisation(t.app, {
      name: 'Reminder Studio',
      timezone: 'UTC',
      address: '2 High Street',
    });
    owner = await withApiKey(t.app, owner);
    const type = await createType(t.app, owner, { name: 'Lesson', reminders: [{ minutesBefore: 60 }] });
    roomId = (await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id })).id;
  });
  after(async () => {
    await t?.close();
    await catcher?.close();
  });
  afterEach(() => mock.timers.reset());

  async function mailsTo(email: string): Promise<CaughtMessage[]> {
    await t.app.services.mail.drain();
    return (await catcher.messages()).filter((message) => message.envelope.to.includes(email));
  }

  test('the confirmation links to both web calendars; the reminder goes at its moment with them', async () => {
    const email = uniqueEmail('remind');
    const mon = futureMonday();
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', {
        resourceId: roomId,
        startTime: at(mon, 10),
        endTime: at(mon, 11),
        customer: { name: 'Rita', email },
      }),
      201,
    );
    const day = booked.startTime.slice(0, 10).replaceAll('-', '');
    const links = calendarLinks(day);
    const [confirmation, ...none] = await mailsTo(email);
    assert.deepEqual(none, []);
    const text = String(confirmation?.text);
    assert.ok(text.includes(`Add to Google Calendar: ${links.google}`), text);
    assert.ok(text.includes(`Add to Outlook: ${links.outlook}`), text);
    assert.ok(text.includes('location=2%20High%20Street'), 'the location is the address');
    assert.ok(String(confirmation?.html).includes(`href="${links.google.replaceAll('&', '&amp;')}`));
    assert.ok(
      confirmation?.attachments.some((a) => a.contentType === 'text/calendar'),
      'and the .ics invitation',
    );

    mock.timers.enable({ apis: ['Date'], now: Date.parse(booked.startTime) - 60 * 60_000 });
    await t.app.services.reservations.sendDueReminders();
    const [, reminder, ...more] = await mailsTo(email);
    assert.deepEqual(more, [], 'one reminder');
    assert.match(String(reminder?.subject), /^Reminder Studio: a reminder of your booking on /);
    const body = String(reminder?.text);
    assert.match(body, /This is a reminder of your booking with Reminder Studio, starting /);
    assert.match(body, /^Manage your booking: http:\/\/frontend\.test\/manage\/[A-Za-z0-9_-]{43}$/m);
    assert.ok(body.includes(`Add to Google Calendar: ${links.google}`));
    assert.ok(body.includes(`Add to Outlook: ${links.outlook}`));

    // The job runs again: nothing more goes.
    await t.app.services.reservations.sendDueReminders();
    assert.equal((await mailsTo(email)).length, 2);
  });
});
