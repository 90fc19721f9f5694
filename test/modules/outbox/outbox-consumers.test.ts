// The outbox's consumers run soon after events are written, on every instance, with nobody
// calling them: a booking reaches a webhook receiver and the customer's inbox within a
// second, and each event is delivered once even with two instances looking.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { mailsBesidesSignUps } from '../../helpers/account-mail.js';
import { sharedDatabase, TEST_ENV } from '../../helpers/app.js';
import { at, book, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';
import { eventually } from '../../helpers/wait.js';
import { type Receiver, startReceiver, verified, webhooksOf } from '../webhooks/helpers.js';

describe('outbox consumers run promptly on every instance (two on one PostgreSQL; one SQLite file shared on SQLite)', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let drop: () => Promise<void>;
  let receiver: Receiver;
  let catcher: MailCatcher;
  before(async () => {
    receiver = await startReceiver();
    catcher = await startMailCatcher();
    const config = loadConfig({
      ...TEST_ENV,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SMTP_URL: catcher.smtpUrl,
      OUTBOX_POLL_MS: '50',
    });
    const shared = await sharedDatabase();
    drop = shared.drop;
    first = await buildApp(config, { db: shared.first, logger: false });
    second = await buildApp(config, { db: shared.second, logger: false });
    await first.ready();
    await second.ready();
  });
  after(async () => {
    await first.close();
    await second.close();
    await drop();
    await receiver.close();
    await catcher.close();
  });

  test('a consumer that can act on no event runs at most every 5 s on new events; one that can, on each look', async () => {
    const owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const type = await createType(first, owner, { name: 'Desk' });
    const desk = await createResource(first, owner, { name: 'Desk', resourceTypeId: type.id });
    const mon = futureMonday();
    let booked = 0;
    const bookAndWait = async () => {
      expectStatus(
        await book(first, owner, {
          resourceId: desk.id,
          // Hours of Mondays, as the test below books: 9:00 to 17:00, then the next week.
          startTime: at(mon, 9 + (booked % 8) + 168 * Math.floor(booked / 8)),
          endTime: at(mon, 10 + (booked % 8) + 168 * Math.floor(booked / 8)),
        }),
        201,
      );
      booked += 1;
      // Longer than a look (50 ms here): each booking is new to the next one.
      await new Promise((resolve) => setTimeout(resolve, 120));
    };
    let idle = true;
    let runs = 0;
    first.services.outbox.onNewEvents(
      'probe',
      async () => {
        runs += 1;
      },
      { idle: async () => idle },
    );
    const idleFrom = performance.now();
    for (let i = 0; i < 8; i++) await bookAndWait();
    // One run, or one more for each 5 s a loaded machine took; eight (one a booking) without the gate.
    const allowed = 1 + Math.floor((performance.now() - idleFrom) / 5_000);
    assert.ok(runs >= 1 && runs <= allowed && runs < 8, `idle: ${runs} runs for eight bookings`);
    const idleRuns = runs;
    idle = false;
    for (let i = 0; i < 4; i++) await bookAndWait();
    // Within 5 s of an idle run: the gate would have held these back.
    assert.ok(runs - idleRuns >= 2, `busy: ${runs - idleRuns} runs for four bookings`);
    // Their confirmations (and the owner's sign-up mail) are not the next test's to count.
    await catcher.waitForMessages(booked + 1);
    catcher.clear();
  });

  test('each booking reaches the receiver and the inbox within a second, once', async () => {
    const owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const hook = await webhooksOf(first, owner, owner.organisationId).created({
      url: receiver.url,
      events: ['reservation.created'],
    });
    const type = await createType(first, owner, { name: 'Room' });
    const room = await createResource(first, owner, { name: 'Room', resourceTypeId: type.id });
    const arrivedAt: number[] = [];
    receiver.behave((_request, response, index) => {
      arrivedAt[index] = Date.now();
      response.writeHead(204).end();
    });
    const mon = futureMonday();
    const bookedAt = new Map<number, number>();
    for (let i = 0; i < 8; i++) {
      const app = i % 2 === 0 ? first : second;
      const booked = expectStatus(
        await as(app, owner).post('/api/reservations', {
          customer: { ...customer, email: `guest-${i}@example.test` },
          resourceId: room.id,
          startTime: at(mon, 9 + i),
          endTime: at(mon, 10 + i),
        }),
        201,
      );
      bookedAt.set(booked.id, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    await eventually(() => receiver.received.length >= 8, 3_000, 'eight webhook requests');
    // Mail gives way to requests while the cores are busy (decisions: "Mail gives way to bookings
    // under load"): well within the minute of its periodic sweep, not held to the webhook's second.
    await eventually(
      async () => (await mailsBesidesSignUps(catcher)).length >= 8,
      10_000,
      'eight confirmation mails',
    );
    // Both instances kept looking; nothing more may arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const events = receiver.received.map((request) => verified(hook.secret, request));
    const ids = events.map((event) => (event.data as { id: number }).id);
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      [...bookedAt.keys()].sort((a, b) => a - b),
    );
    for (const [index, event] of events.entries()) {
      const latency = arrivedAt[index]! - bookedAt.get((event.data as { id: number }).id)!;
      assert.ok(latency < 1_000, `delivered ${latency} ms after its booking answered`);
    }
    assert.deepEqual(
      (await mailsBesidesSignUps(catcher)).map((message) => message.envelope.to[0]).sort(),
      [...Array(8).keys()].map((i) => `guest-${i}@example.test`).sort(),
    );
  });
});
