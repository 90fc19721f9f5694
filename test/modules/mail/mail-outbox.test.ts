// The mail module as the app wires it: the consumer reads the real outbox service
// (events appended through it, as the write paths do) and sends to the catcher over SMTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus } from '../../helpers/http.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';

describe('mail from the outbox', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp({ SMTP_URL: catcher.smtpUrl });
  });
  after(async () => {
    await t.close();
    await catcher.close();
  });

  test('each appended event is mailed once, in order', async () => {
    const owner = await ownerWithOrganisation(t.app, { name: 'Studio', timezone: 'UTC' });
    const type = await createType(t.app, owner, { name: 'Lesson' });
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const monday = futureMonday();
    const booked = expectStatus(
      await call(t.app, owner, 'POST', '/api/reservations', {
        resourceId: resource.id,
        startTime: at(monday, 9),
        endTime: at(monday, 10),
        customer: { name: 'Kim', email: 'kim@example.test' },
      }),
      201,
    );
    const { outbox, mail } = t.app.services;
    // Whatever the booking itself emitted (if anything) is mailed too; count from here.
    await mail.drain();
    catcher.clear();
    await outbox.append(t.db.kysely, [
      { type: 'reservation.confirmed', organisationId: owner.organisationId, userId: owner.id, data: booked },
      {
        type: 'reservation.cancelled',
        organisationId: owner.organisationId,
        userId: owner.id,
        data: { ...booked, status: 'cancelled' },
      },
    ]);
    const drained = await mail.drain();
    assert.equal(drained.sent, 2);
    assert.equal(drained.stopped, false);
    assert.equal((await mail.drain()).sent, 0);
    const messages = await catcher.messages();
    assert.deepEqual(
      messages.map((message) => [message.envelope.to[0], message.subject]),
      [
        [
          'kim@example.test',
          `Studio: your booking on ${monday.getUTCDate()} ${monday.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' })} ${monday.getUTCFullYear()} is confirmed`,
        ],
        [
          'kim@example.test',
          `Studio: your booking on ${monday.getUTCDate()} ${monday.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' })} ${monday.getUTCFullYear()} is cancelled`,
        ],
      ],
    );
    assert.ok(
      messages.every((message) => message.attachments.some((part) => part.contentType === 'text/calendar')),
    );
  });
});
