// The mail catcher: real SMTP on loopback (nodemailer as the client), its admin routes
// over real HTTP, and `npm start`'s wiring of it when SMTP_URL is unset in development.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTransport } from 'nodemailer';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { startDevelopmentMail } from '../../../tools/emulators/development.js';
import {
  type CaughtMessage,
  type MailCatcher,
  startMailCatcher,
} from '../../../tools/emulators/mail/server.js';

describe('mail catcher', () => {
  let catcher: MailCatcher;
  before(async () => {
    catcher = await startMailCatcher({ maxMessages: 3 });
  });
  after(() => catcher.close());
  beforeEach(() => catcher.clear());

  const send = (message: Record<string, unknown>) => {
    const transport = createTransport({ url: catcher.smtpUrl });
    return transport
      .sendMail({ from: 'Shop <shop@example.test>', ...message })
      .finally(() => transport.close());
  };

  test('keeps what it receives over SMTP on loopback, attachments included, and lists it', async () => {
    assert.match(catcher.smtpUrl, /^smtp:\/\/127\.0\.0\.1:\d+$/);
    await send({
      to: 'ada@example.test',
      subject: 'Hello Ada',
      text: 'Plain words',
      html: '<p>Rich words</p>',
      icalEvent: { method: 'REQUEST', content: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n' },
    });
    const response = await fetch(`${catcher.url}/__admin/messages`);
    assert.equal(response.status, 200);
    assert.match(String(response.headers.get('content-type')), /^application\/json/);
    const [message, ...rest] = (await response.json()) as CaughtMessage[];
    assert.equal(rest.length, 0);
    assert.ok(message);
    assert.deepEqual(message.envelope, { from: 'shop@example.test', to: ['ada@example.test'] });
    assert.equal(message.from, 'shop@example.test');
    assert.deepEqual(message.to, ['ada@example.test']);
    assert.equal(message.subject, 'Hello Ada');
    assert.equal(message.text?.trim(), 'Plain words');
    assert.equal(message.html?.trim(), '<p>Rich words</p>');
    const calendar = message.attachments.find((part) => part.contentType === 'text/calendar');
    assert.ok(calendar, 'the calendar part is listed');
    assert.match(calendar.content, /BEGIN:VCALENDAR/);
    assert.match(message.raw, /^Content-Type: text\/calendar; charset=utf-8; method=REQUEST/m);

    const one = await fetch(`${catcher.url}/__admin/messages/${message.id}`);
    assert.equal(((await one.json()) as CaughtMessage).subject, 'Hello Ada');
    assert.equal((await fetch(`${catcher.url}/__admin/messages/nope`)).status, 404);
  });

  test('DELETE clears the list; only the newest maxMessages are kept', async () => {
    for (const n of [1, 2, 3, 4])
      await send({ to: `n${n}@example.test`, subject: `Message ${n}`, text: 'x' });
    assert.deepEqual(
      (await catcher.messages()).map((message) => message.subject),
      ['Message 2', 'Message 3', 'Message 4'],
    );
    const cleared = await fetch(`${catcher.url}/__admin/messages`, { method: 'DELETE' });
    assert.equal(cleared.status, 200);
    assert.deepEqual(await (await fetch(`${catcher.url}/__admin/messages`)).json(), []);
  });

  test('waitForMessages resolves once enough arrived, and times out otherwise', async () => {
    const waiting = catcher.waitForMessages(2, 5_000);
    await send({ to: 'a@example.test', subject: 'one', text: 'x' });
    await send({ to: 'b@example.test', subject: 'two', text: 'x' });
    assert.equal((await waiting).length, 2);
    await assert.rejects(catcher.waitForMessages(3, 50), /holds 2 messages, not 3/);
  });

  test('accepts any credentials (it relays nothing)', async () => {
    const transport = createTransport({
      url: catcher.smtpUrl.replace('smtp://', 'smtp://someone:secret@'),
    });
    await transport.sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'auth', text: 'x' });
    transport.close();
    assert.equal((await catcher.messages())[0]?.subject, 'auth');
  });
});

describe('mail configuration', () => {
  test('development without SMTP_URL starts the catcher and points the config at it', async () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    assert.equal(config.mail.smtpUrl, undefined);
    assert.equal(config.mail.from, 'no-reply@localhost');
    const started = await startDevelopmentMail(config);
    try {
      assert.equal(started.emulators.length, 1);
      assert.equal(started.emulators[0]?.provider, 'mail');
      assert.match(String(started.config.mail.smtpUrl), /^smtp:\/\/127\.0\.0\.1:\d+$/);
      const listed = await fetch(String(started.emulators[0]?.url));
      assert.deepEqual(await listed.json(), []);
    } finally {
      await Promise.all(started.emulators.map((emulator) => emulator.close()));
    }
  });

  test('with SMTP_URL, or outside development, no catcher starts', async () => {
    const set = loadConfig({ NODE_ENV: 'development', SMTP_URL: 'smtp://mail.example:587' });
    assert.deepEqual((await startDevelopmentMail(set)).emulators, []);
    assert.deepEqual((await startDevelopmentMail(loadConfig({ NODE_ENV: 'test' }))).emulators, []);
  });

  test('SMTP_URL and MAIL_FROM are validated; MAIL_FROM defaults to the public host', () => {
    assert.throws(
      () => loadConfig({ SMTP_URL: 'http://mail.example' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^Invalid environment variable SMTP_URL: must be an smtp/.test(error.message),
    );
    assert.throws(
      () => loadConfig({ MAIL_FROM: 'not an address' }),
      /Invalid environment variable MAIL_FROM/,
    );
    assert.throws(() => loadConfig({ MAIL_FROM: 'Shop <a@b.example>, c@d.example' }), /MAIL_FROM/);
    assert.throws(() => loadConfig({ MAIL_FROM: 'Shop, Inc <a@b.example>' }), /MAIL_FROM/);
    assert.equal(
      loadConfig({ MAIL_FROM: '"Shop, Inc" <a@b.example>' }).mail.from,
      '"Shop, Inc" <a@b.example>',
    );
    const config = loadConfig({
      SMTP_URL: 'smtps://user:pass@mail.example:465',
      MAIL_FROM: ' Shop <bookings@shop.example> ',
    });
    assert.deepEqual(config.mail, {
      smtpUrl: 'smtps://user:pass@mail.example:465',
      from: 'Shop <bookings@shop.example>',
    });
    assert.equal(
      loadConfig({ PUBLIC_URL: 'https://book.shop.example' }).mail.from,
      'no-reply@book.shop.example',
    );
  });
});
