// Mail from the outbox (DECISIONS.md "Events, webhooks and notifications", Email):
// templates with the organisation's branding, the iCalendar invitation parsed back (stable
// UID, SEQUENCE raised by a reschedule, METHOD:CANCEL), real SMTP to the bundled catcher
// on loopback, and each mail sent once. The events are real API records (booked,
// moved, cancelled through HTTP) handed to the mail service by a fake outbox.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, mock, test } from 'node:test';
import ICAL from 'ical.js';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../../src/config.js';
import { createMailRepo, GROUP_ROWS } from '../../../src/modules/mail/repo.js';
import type { MailableEvent } from '../../../src/modules/mail/schemas.js';
import { createMailService } from '../../../src/modules/mail/service.js';
import type { EventType, OutboxEvent } from '../../../src/modules/outbox/schemas.js';
import type { OutboxConsumerPort } from '../../../src/modules/outbox/service.js';
import {
  type CaughtMessage,
  type MailCatcher,
  startMailCatcher,
} from '../../../tools/emulators/mail/server.js';
import { createTestApp, registerUser, TEST_ENV, type TestApp } from '../../helpers/app.js';
import { at, createReservation, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus } from '../../helpers/http.js';
import { addWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/** Event ids increase across the file's outboxes, as the one outbox's do: the position is shared. */
let next = 1;

/** The outbox as the consumer reads it: events in id order after a position. */
function fakeOutbox() {
  const events: OutboxEvent[] = [];
  const reader: Pick<OutboxConsumerPort, 'readAfter' | 'onNewEvents'> = {
    async readAfter(afterId, limit) {
      const after = afterId === null ? 0 : Number(afterId);
      return events.filter((event) => Number(event.id) > after).slice(0, limit);
    },
    onNewEvents() {},
  };
  return {
    reader,
    push(type: EventType, organisationId: number | null, data: unknown): MailableEvent {
      const event = {
        id: String(next++),
        type,
        occurredAt: new Date().toISOString(),
        organisationId,
        userId: null,
        data,
      };
      events.push(event);
      return event;
    },
  };
}

function parseCalendar(content: string) {
  const calendar = new ICAL.Component(ICAL.parse(content));
  const event = calendar.getFirstSubcomponent('vevent');
  assert.ok(event, 'the calendar has an event');
  return {
    method: calendar.getFirstPropertyValue('method'),
    uid: event.getFirstPropertyValue('uid'),
    sequence: Number(event.getFirstPropertyValue('sequence')),
    status: event.getFirstPropertyValue('status'),
    start: String(event.getFirstPropertyValue('dtstart')),
    attendee: String(event.getFirstPropertyValue('attendee')),
  };
}

const calendarOf = (message: CaughtMessage | undefined) => {
  const part = message?.attachments.find((attachment) => attachment.contentType === 'text/calendar');
  return part ? parseCalendar(part.content) : null;
};

describe('mail', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  let owner: OrgOwner;
  let resourceId: number;
  const monday = futureMonday();

  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, {
      name: 'Salon <Bella>',
      timezone: 'Europe/Berlin',
      email: 'hello@salon.example',
      logoUrl: 'https://salon.example/logo.png',
      address: '1 Main Street',
    });
    expectStatus(
      await call(t.app, owner, 'PATCH', `/api/organisations/${owner.organisationId}/color`, {
        color: '#a1b',
      }),
      200,
    );
    const type = await createType(t.app, owner, { name: 'Haircut' });
    resourceId = (await createResource(t.app, owner, { name: 'Chair', resourceTypeId: type.id })).id;
  });
  after(async () => {
    await t.close();
    await catcher.close();
  });
  beforeEach(() => catcher.clear());
  afterEach(() => mock.timers.reset());

  function mailService(
    outbox: Pick<OutboxConsumerPort, 'readAfter' | 'onNewEvents'>,
    env: Record<string, string> = {},
    giveWay?: () => Promise<void>,
  ) {
    const config = loadConfig({
      ...TEST_ENV,
      SMTP_URL: catcher.smtpUrl,
      MAIL_FROM: 'bookings@mail.example',
      ...env,
    });
    return createMailService({
      db: t.db,
      config,
      outbox,
      organisations: t.app.services.organisations,
      ...(giveWay ? { giveWay } : {}),
    });
  }

  let slot = 0;
  /** Books the next free hour (a new customer address each time unless given): no two calls collide. */
  async function bookNext(customer = { name: 'Ada <Lovelace>', email: `Ada.${slot}@Example.test` }) {
    // Four a day from 08:00 UTC (inside the default opening hours in Berlin), Monday on.
    const hour = 24 * Math.floor(slot / 4) + 8 + (slot % 4);
    slot += 1;
    const record = await createReservation(t.app, owner, { resourceId, ...hourSlot(monday, hour), customer });
    return record as { id: number; status: string; startTime: string } & Record<string, unknown>;
  }

  test('a booking, two reschedules and a cancellation: one UID, SEQUENCE up, then CANCEL', async () => {
    const outbox = fakeOutbox();
    const mail = mailService(outbox.reader);
    const booked = await bookNext();
    assert.equal(booked.status, 'confirmed');
    outbox.push('reservation.created', owner.organisationId, booked);
    let moved = booked;
    for (const hour of [13, 14]) {
      moved = expectStatus(
        await call(t.app, owner, 'POST', `/api/reservations/${booked.id}/reschedule`, {
          startTime: at(monday, hour),
          endTime: at(monday, hour + 1),
        }),
        200,
      );
      outbox.push('reservation.rescheduled', owner.organisationId, moved);
    }
    const cancelled = expectStatus(
      await call(t.app, owner, 'POST', `/api/reservations/${booked.id}/cancel`),
      200,
    );
    outbox.push('reservation.cancelled', owner.organisationId, cancelled);

    assert.deepEqual(await mail.drain(), { events: 4, sent: 4, failed: 0, stopped: false });
    const messages = await catcher.messages();
    assert.equal(messages.length, 4);
    const customerEmail = (booked.customer as { email: string }).email;
    assert.match(customerEmail, /^ada\.\d+@example\.test$/i);
    for (const message of messages) {
      assert.deepEqual(message.envelope.to, [customerEmail.toLowerCase()], 'to the customer, lowercased');
      assert.equal(message.from, 'bookings@mail.example');
      assert.match(message.raw, /^From: "?Salon <Bella>"? <bookings@mail\.example>|^From: =\?/m);
      assert.match(message.raw, /^Reply-To: hello@salon\.example/m);
    }
    const [confirmation, first, second, cancellation] = messages.map(calendarOf);
    const uid = `reservation-${booked.id}@service.test`;
    assert.deepEqual(
      [confirmation, first, second, cancellation].map((c) => [c?.method, c?.uid, c?.sequence, c?.status]),
      [
        ['REQUEST', uid, 0, 'CONFIRMED'],
        ['REQUEST', uid, 1, 'CONFIRMED'],
        ['REQUEST', uid, 2, 'CONFIRMED'],
        ['CANCEL', uid, 3, 'CANCELLED'],
      ],
    );
    assert.equal(new Date(String(second?.start)).toISOString(), at(monday, 14));
    assert.equal(String(confirmation?.attendee).toLowerCase(), `mailto:${customerEmail.toLowerCase()}`);
    assert.match(String(messages[0]?.subject), /^Salon <Bella>: your booking on .* is confirmed$/);
    assert.match(String(messages[1]?.subject), /your booking has moved/);
    assert.match(String(messages[3]?.subject), /is cancelled$/);
  });

  test('a burst of bookings in one drain: each invitation its own SEQUENCE, reschedules counted in order', async () => {
    const outbox = fakeOutbox();
    const mail = mailService(outbox.reader);
    const [first, second, held, third] = [
      await bookNext(),
      await bookNext(),
      await bookNext(),
      await bookNext(),
    ];
    const sequences = async () =>
      new Map(
        (await catcher.messages()).map((message) => [message.envelope.to[0], calendarOf(message)?.sequence]),
      );
    const emailOf = (booked: Record<string, unknown>) =>
      (booked.customer as { email: string }).email.toLowerCase();

    outbox.push('reservation.created', owner.organisationId, first);
    outbox.push('reservation.created', owner.organisationId, second);
    // A hold moved before it was confirmed: its first invitation comes after that count.
    outbox.push('reservation.rescheduled', owner.organisationId, { ...held, status: 'held' });
    outbox.push('reservation.confirmed', owner.organisationId, held);
    outbox.push('reservation.created', owner.organisationId, third);
    // The hold's move is counted, not mailed: its customer hears of it once it is confirmed.
    assert.equal((await mail.drain()).sent, 4);
    const burst = await sequences();
    assert.deepEqual(
      [first, second, held, third].map((booked) => burst.get(emailOf(booked))),
      [0, 0, 1, 0],
    );

    // One already invited and moved since, beside a new one: the run reads what it has.
    catcher.clear();
    outbox.push('reservation.rescheduled', owner.organisationId, first);
    assert.equal((await mail.drain()).sent, 1);
    catcher.clear();
    const fourth = await bookNext();
    outbox.push('reservation.confirmed', owner.organisationId, first);
    outbox.push('reservation.created', owner.organisationId, fourth);
    assert.equal((await mail.drain()).sent, 2);
    const again = await sequences();
    assert.deepEqual([again.get(emailOf(first)), again.get(emailOf(fourth))], [1, 0]);
  });

  test('templates: plain text and HTML, branded, times in the organisation zone, people escaped', async () => {
    const outbox = fakeOutbox();
    const mail = mailService(outbox.reader);
    const booked = await bookNext({ name: '<script>alert(1)</script>', email: 'grace@example.test' });
    const [planned] =
      (await mail.mailFor(outbox.push('reservation.created', owner.organisationId, booked))) ?? [];
    assert.ok(planned);
    assert.equal(planned.kind, 'booking_confirmation');
    assert.equal(planned.to, 'grace@example.test');
    assert.equal(planned.key, `${planned.eventId}/booking_confirmation/grace@example.test`);
    // The words are rendered on the sender's thread: what arrives is what it wrote.
    assert.equal((await mail.drain()).sent, 1);
    const [message] = await catcher.messages();
    assert.equal(message?.subject, planned.subject);
    const rendered = { text: String(message?.text), html: String(message?.html) };
    // Europe/Berlin: the UTC start shows an hour or two later, with the zone named.
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(booked.startTime));
    assert.match(rendered.text, new RegExp(`When: .*${local}.*\\(Europe/Berlin\\)`));
    assert.match(rendered.text, /Service: Haircut/);
    // The public reference, never the id, which would tell how many bookings the business has.
    const reference = String(booked.reference);
    assert.match(reference, /^[2-9A-HJ-NP-Z]{8}$/);
    assert.match(rendered.text, new RegExp(`^Reference: ${reference}$`, 'm'));
    assert.doesNotMatch(rendered.text, new RegExp(`#${booked.id}\\b`));
    assert.match(rendered.text, /^Hello <script>alert\(1\)<\/script>,$/m, 'text is text');
    assert.doesNotMatch(rendered.html, /<script>/);
    assert.match(rendered.html, /Hello &lt;script&gt;alert\(1\)&lt;\/script&gt;,/);
    assert.match(rendered.html, /Salon &lt;Bella&gt;/);
    assert.match(rendered.html, /background:#aa11bb/, 'the organisation colour, #rgb widened');
    assert.match(rendered.html, /<img src="https:\/\/salon\.example\/logo\.png" alt="Salon &lt;Bella&gt;"/);
    assert.match(rendered.text, /Salon <Bella> · 1 Main Street · hello@salon\.example/);
  });

  test('a hold waiting for payment carries its checkout link; its expiry carries no invitation', async () => {
    const outbox = fakeOutbox();
    const mail = mailService(outbox.reader);
    const booked = await bookNext({ name: 'Pat', email: 'pat@example.test' });
    const waiting = {
      ...booked,
      status: 'pending_payment',
      expiresAt: at(monday, 1),
      payment: {
        status: 'requires_payment',
        amount: 2550,
        currency: 'eur',
        checkoutUrl: 'https://pay.example/checkout/cs_1',
        expiresAt: at(monday, 1),
      },
    };
    outbox.push('reservation.created', owner.organisationId, waiting);
    outbox.push('reservation.expired', owner.organisationId, {
      ...waiting,
      status: 'expired',
      expiresAt: null,
    });
    assert.equal((await mail.drain()).sent, 2);
    const [hold, expiry] = await catcher.messages();
    assert.match(String(hold?.subject), /complete your payment/);
    assert.match(String(hold?.text), /Pay now: https:\/\/pay\.example\/checkout\/cs_1/);
    assert.match(String(hold?.text), /Price: €25\.50/);
    assert.match(String(hold?.html), /<a href="https:\/\/pay\.example\/checkout\/cs_1"/);
    assert.equal(calendarOf(hold), null, 'a hold is in nobody’s calendar yet');
    assert.match(String(expiry?.subject), /your hold on .* has expired/);
    assert.equal(calendarOf(expiry), null, 'nothing to cancel in a calendar');
  });

  test('a membership invitation by email goes to the invitee, naming the inviter', async () => {
    const outbox = fakeOutbox();
    const mail = mailService(outbox.reader);
    const invitation = expectStatus(
      await call(t.app, owner, 'POST', `/api/organisations/${owner.organisationId}/users/assign`, {
        email: 'new.colleague@example.test',
        role: 'MANAGER',
      }),
      201,
    );
    outbox.push('membership.invited', owner.organisationId, invitation);
    outbox.push('payment.refunded', owner.organisationId, { id: 1 });
    assert.deepEqual(await mail.drain(), { events: 2, sent: 1, failed: 0, stopped: false });
    const [message] = await catcher.messages();
    assert.deepEqual(message?.envelope.to, ['new.colleague@example.test']);
    assert.equal(message?.subject, 'Owner invited you to join Salon <Bella>');
    assert.match(String(message?.text), /as a manager/);
    assert.match(String(message?.text), /See the invitation: http:\/\/frontend\.test\/app\/invitations/);
  });

  test('a disabled webhook endpoint is mailed to every owner, and to nobody else', async () => {
    const outbox = fakeOutbox();
    const mail = mailService(outbox.reader);
    const second = await registerUser(t.app, 'Second Owner');
    const admin = await registerUser(t.app, 'An Admin');
    await addWithRole(t.app, owner, owner.organisationId, second, 'OWNER');
    await addWithRole(t.app, owner, owner.organisationId, admin, 'ADMIN');
    outbox.push('webhook.disabled', owner.organisationId, {
      id: 7,
      url: 'https://hooks.example/orders',
      events: ['reservation.created'],
      description: 'Orders <system>',
      status: 'disabled',
      createdAt: '2027-01-01T00:00:00.000Z',
      updatedAt: '2027-01-04T00:00:00.000Z',
      disabledAt: '2027-01-04T00:00:00.000Z',
    });
    assert.deepEqual(await mail.drain(), { events: 1, sent: 2, failed: 0, stopped: false });
    const messages = await catcher.messages();
    assert.deepEqual(
      messages.map((message) => message.envelope.to[0]).sort(),
      [owner.email, second.email].sort(),
    );
    for (const message of messages) {
      assert.equal(message.subject, 'Salon <Bella>: a webhook endpoint was disabled');
      assert.match(String(message.text), /Endpoint: https:\/\/hooks\.example\/orders/);
      assert.match(String(message.html), /Orders &lt;system&gt;/);
      assert.match(
        String(message.text),
        new RegExp(
          `See the endpoint: http://frontend\\.test/app/organisations/${owner.organisationId}/webhooks/7`,
        ),
      );
    }
  });

  test('each mail is sent once: again, after a lost position, and from two senders at once', async () => {
    const outbox = fakeOutbox();
    const booked = await bookNext({ name: 'Once', email: 'once@example.test' });
    outbox.push('reservation.created', owner.organisationId, booked);
    const first = mailService(outbox.reader);
    assert.equal((await first.drain()).sent, 1);
    assert.equal((await first.drain()).sent, 0, 'the position moved past it');
    // A crash after the send was marked but before the position moved: marked, not resent.
    await t.db.kysely.deleteFrom('mailConsumerPositions').execute();
    assert.deepEqual(await mailService(outbox.reader).drain(), {
      events: 1,
      sent: 0,
      failed: 0,
      stopped: false,
    });

    for (let n = 0; n < 5; n += 1) {
      const more = await bookNext({ name: `Many ${n}`, email: `many${n}@example.test` });
      outbox.push('reservation.created', owner.organisationId, more);
    }
    const results = await Promise.all([
      mailService(outbox.reader).drain(),
      mailService(outbox.reader).drain(),
    ]);
    // One may stop at a mail the other holds; whatever is left, the next run sends.
    const again = await mailService(outbox.reader).drain();
    assert.equal(results[0].sent + results[1].sent + again.sent, 5);
    const recipients = (await catcher.messages()).map((message) => message.envelope.to[0]);
    assert.equal(recipients.length, 6);
    assert.equal(new Set(recipients).size, 6, 'nobody got a mail twice');
  });

  test('a drain gives way before each group: nothing is claimed or sent while it waits', async () => {
    const outbox = fakeOutbox();
    const booked = await bookNext({ name: 'Patient', email: 'patient@example.test' });
    // Two groups' worth: one booking's event again and again, a mail each.
    for (let n = 0; n <= GROUP_ROWS; n += 1) outbox.push('reservation.created', owner.organisationId, booked);
    let looks = 0;
    let goOn: () => void = () => {};
    // The first look holds the drain (the service is busy) until let go; the next answers at once.
    const gate = () => {
      looks += 1;
      return looks === 1 ? new Promise<void>((resolve) => (goOn = resolve)) : Promise.resolve();
    };
    const drained = mailService(outbox.reader, {}, gate).drain();
    // The drain reads its position and a page first (round trips on PostgreSQL).
    const deadline = performance.now() + 5_000;
    while (looks === 0 && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(looks, 1, 'the drain looked before its first group');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const claimed = await t.db.kysely
      .selectFrom('mailMessages')
      .select('id')
      .where('recipient', '=', 'patient@example.test')
      .execute();
    assert.deepEqual(claimed, [], 'nothing claimed while it waits');
    assert.equal((await catcher.messages()).length, 0, 'nothing sent while it waits');
    goOn();
    assert.deepEqual(await drained, {
      events: GROUP_ROWS + 1,
      sent: GROUP_ROWS + 1,
      failed: 0,
      stopped: false,
    });
    assert.equal(looks, 2, 'and looked again before its second group');
  });

  test('an SMTP outage stops the drain at that event; the next run sends it once', async () => {
    const outbox = fakeOutbox();
    const booked = await bookNext({ name: 'Later', email: 'later@example.test' });
    outbox.push('reservation.created', owner.organisationId, booked);
    const down = mailService(outbox.reader, { SMTP_URL: 'smtp://127.0.0.1:1' });
    const failed = await down.drain();
    assert.equal(failed.stopped, true);
    assert.equal(failed.sent, 0);
    const row = await t.db.kysely
      .selectFrom('mailMessages')
      .select(['status', 'lastError', 'attempts'])
      .where('recipient', '=', 'later@example.test')
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'sending');
    assert.match(String(row.lastError), /ECONNREFUSED|connect/i);
    assert.doesNotMatch(String(row.lastError), /smtp:\/\//);
    assert.deepEqual(await mailService(outbox.reader).drain(), {
      events: 1,
      sent: 1,
      failed: 0,
      stopped: false,
    });
    assert.deepEqual(
      (await catcher.messages()).map((message) => message.envelope.to[0]),
      ['later@example.test'],
    );
  });

  test('a refusal worth a retry mid-group: the mails before it stay sent, the rest are let go at once', async () => {
    // An SMTP server that refuses one recipient for now (451), as a greylisting server does.
    const received: string[] = [];
    let refusing = true;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onRcptTo(address, _session, callback) {
        if (refusing && address.address === 'second@example.test') {
          const error = Object.assign(new Error('Try again later'), { responseCode: 451 });
          callback(error);
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          received.push(...session.envelope.rcptTo.map((rcpt) => rcpt.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let mail: ReturnType<typeof mailService> | undefined;
    try {
      const { port } = server.server.address() as AddressInfo;
      const outbox = fakeOutbox();
      for (const name of ['first', 'second', 'third']) {
        outbox.push(
          'reservation.created',
          owner.organisationId,
          await bookNext({ name, email: `${name}@example.test` }),
        );
      }
      mail = mailService(outbox.reader, { SMTP_URL: `smtp://127.0.0.1:${port}` });
      const stopped = await mail.drain();
      assert.deepEqual([stopped.sent, stopped.stopped], [1, true]);
      const rows = await t.db.kysely
        .selectFrom('mailMessages')
        .select(['recipient', 'status', 'claimedAt', 'lastError'])
        .where('recipient', 'in', ['first@example.test', 'second@example.test', 'third@example.test'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.recipient, row.status, row.claimedAt === null]),
        [
          ['first@example.test', 'sent', true],
          ['second@example.test', 'sending', true],
          // Claimed with its group, never tried: let go, so no lease holds it back.
          ['third@example.test', 'sending', true],
        ],
      );
      assert.match(String(rows[1]?.lastError), /Try again later/);
      assert.equal(rows[2]?.lastError, null);
      refusing = false;
      const resumed = await mail.drain();
      assert.deepEqual([resumed.sent, resumed.stopped], [2, false]);
      assert.deepEqual(received, ['first@example.test', 'second@example.test', 'third@example.test']);
    } finally {
      // The sender's connection stays open while idle (10 s); the server waits for it to close.
      await mail?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('a send that crashed mid-way is taken over after its lease, with the same Message-ID', async () => {
    const outbox = fakeOutbox();
    const booked = await bookNext({ name: 'Crash', email: 'crash@example.test' });
    const event = outbox.push('reservation.created', owner.organisationId, booked);
    const mail = mailService(outbox.reader);
    const [planned] = (await mail.mailFor(event)) ?? [];
    assert.ok(planned);
    const claimedAt = new Date(Date.now() - 60_000).toISOString();
    await t.db.kysely
      .insertInto('mailMessages')
      .values({
        dedupeKey: planned.key,
        eventId: event.id,
        kind: planned.kind,
        organisationId: owner.organisationId,
        recipient: planned.to,
        subject: planned.subject,
        messageId: 'x',
        status: 'sending',
        attempts: 1,
        claimedAt,
        createdAt: claimedAt,
      })
      .execute();
    assert.equal((await mail.drain()).stopped, true, 'a fresh claim belongs to someone else');
    assert.equal(catcher.count(), 0);
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 2 * 60_000 });
    assert.equal((await mail.drain()).sent, 1);
    assert.equal((await mail.drain()).sent, 0);
    const sent = await catcher.messages();
    assert.equal(sent.length, 1);
    assert.match(String(sent[0]?.messageId), /^<[0-9a-f]{32}@mail\.example>$/);
    // The Message-ID derives from the dedupe key: a second attempt is recognisably the same mail.
    await t.db.kysely
      .updateTable('mailMessages')
      .set({ status: 'sending', claimedAt: null })
      .where('dedupeKey', '=', planned.key)
      .execute();
    await t.db.kysely.deleteFrom('mailConsumerPositions').execute();
    await mail.drain();
    assert.equal((await catcher.messages())[1]?.messageId, sent[0]?.messageId);
  });

  test('events older than a day send nothing; the sent log is purged after 30 days', async () => {
    const outbox = fakeOutbox();
    const booked = await bookNext({ name: 'Old', email: 'old@example.test' });
    outbox.push('reservation.created', owner.organisationId, booked);
    const mail = mailService(outbox.reader);
    const now = Date.now();
    mock.timers.enable({ apis: ['Date'], now: now + 25 * 60 * 60_000 });
    assert.deepEqual(await mail.drain(), { events: 1, sent: 0, failed: 0, stopped: false });
    mock.timers.reset();
    const before = Number(
      (
        await t.db.kysely
          .selectFrom('mailMessages')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    assert.ok(before > 0);
    mock.timers.enable({ apis: ['Date'], now: now + 31 * 24 * 60 * 60_000 });
    assert.equal(await mail.purge(), before);
  });

  test('without SMTP_URL nothing is sent and nothing is read', async () => {
    let reads = 0;
    const mail = createMailService({
      db: t.db,
      config: loadConfig(TEST_ENV),
      organisations: t.app.services.organisations,
      outbox: {
        async readAfter() {
          reads += 1;
          return [];
        },
        onNewEvents() {},
      },
    });
    assert.deepEqual(await mail.drain(), { events: 0, sent: 0, failed: 0, stopped: false });
    assert.equal(reads, 0);
    const user = await registerUser(t.app, 'Nobody');
    assert.ok(user.id, 'the app itself runs without mail');
  });

  test("the drain's group statements take more than a group's rows, in parts, each row its own values", async () => {
    const repo = createMailRepo(t.db.kysely);
    const now = new Date().toISOString();
    // Two whole parts and a short one.
    const count = 2 * GROUP_ROWS + 3;
    const claim = (i: number) => ({
      dedupeKey: `parts-${i}`,
      eventId: String(10_000 + i),
      kind: 'booking_confirmation',
      organisationId: owner.organisationId,
      recipient: `guest${i}@example.com`,
      subject: `Subject ${i}`,
      messageId: `<parts-${i}@example.com>`,
      now,
      staleBefore: new Date(Date.parse(now) - 60_000).toISOString(),
    });
    const inputs = Array.from({ length: count }, (_, i) => claim(i));
    const claims = await repo.claimAll(inputs);
    assert.equal(claims.length, count);
    const ids = claims.map((c) =>
      c.outcome === 'claimed' ? c.id : assert.fail(`not claimed: ${c.outcome}`),
    );
    assert.equal(new Set(ids).size, count);
    const rows = await t.db.kysely
      .selectFrom('mailMessages')
      .select(['id', 'dedupeKey', 'eventId', 'recipient', 'subject', 'messageId', 'status', 'attempts'])
      .where('dedupeKey', 'like', 'parts-%')
      .execute();
    for (const [i, input] of inputs.entries()) {
      const row = rows.find((r) => r.id === ids[i]);
      assert.deepEqual(row && { ...row, id: undefined }, {
        id: undefined,
        dedupeKey: input.dedupeKey,
        eventId: input.eventId,
        recipient: input.recipient,
        subject: input.subject,
        messageId: input.messageId,
        status: 'sending',
        attempts: 1,
      });
    }

    await repo.markSent(ids, now);
    const sent = await t.db.kysely
      .selectFrom('mailMessages')
      .select(['status', 'claimedAt', 'sentAt'])
      .where('dedupeKey', 'like', 'parts-%')
      .execute();
    assert.equal(sent.length, count);
    for (const row of sent) {
      assert.equal(row.status, 'sent');
      assert.equal(row.claimedAt, null);
      assert.ok(row.sentAt);
    }
    // Claimed again: every one is done.
    assert.deepEqual(
      (await repo.claimAll(inputs)).map((c) => c.outcome),
      inputs.map(() => 'sent'),
    );

    const reservations = Array.from({ length: count }, (_, i) => 900_000 + i);
    const first = await repo.recordInvitations(reservations, now);
    assert.deepEqual(
      [...first.keys()].sort((a, b) => a - b),
      reservations,
    );
    assert.ok([...first.values()].every((sequence) => sequence === 0));
    await repo.countReschedule(900_005, 'moved-1', now);
    const again = await repo.recordInvitations(reservations, now);
    assert.equal(again.size, count);
    assert.equal(again.get(900_005), 1, 'a recorded invitation keeps what reschedules made it');
    assert.equal(again.get(900_006), 0);
  });
});
