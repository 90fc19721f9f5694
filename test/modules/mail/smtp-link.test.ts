// The sender's one SMTP connection: kept open across messages, still usable after the server
// refuses one, opened again after the server closes it (a message caught in that closing goes
// over the new one), closed when idle, and renewed after 100 messages.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { composeMessage } from '../../../src/modules/mail/mime.js';
import { createSmtpLink, type SmtpLink } from '../../../src/modules/mail/smtp-link.js';

const timeouts = { connectionTimeout: 2_000, greetingTimeout: 2_000, socketTimeout: 5_000 };
/** The link's idle time here (10 s in the service): long beside a message's exchange on loopback. */
const IDLE_MS = 300;
const message = (to: string) => composeMessage({ from: 'bookings@example.test', to, text: 'x' });

describe('SMTP link', () => {
  let server: SMTPServer;
  let link: SmtpLink;
  let opened: number;
  let accepted: string[];
  /** Resolves when the server has seen `count` connections close. */
  let closed: { count: number; waiting: Array<[number, () => void]> };
  const connectionsClosed = (count: number) =>
    new Promise<void>((resolve) =>
      closed.count >= count ? resolve() : closed.waiting.push([count, resolve]),
    );

  /** A catcher on `port` (any free one by default), counting what it sees from now on. */
  async function startServer(port = 0): Promise<number> {
    // This server's own count: a server of an earlier test may still be closing its connections.
    const ours = { count: 0, waiting: [] as Array<[number, () => void]> };
    closed = ours;
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onConnect: (_session, callback) => {
        opened += 1;
        callback();
      },
      onClose: () => {
        ours.count += 1;
        for (const [count, resolve] of ours.waiting) if (ours.count >= count) resolve();
      },
      onRcptTo: ({ address }, _session, callback) =>
        address.startsWith('nobody@')
          ? callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }))
          : callback(),
      onData: (stream, session, callback) => {
        stream.resume();
        stream.on('end', () => {
          accepted.push(...session.envelope.rcptTo.map((to) => to.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return (server.server.address() as AddressInfo).port;
  }

  beforeEach(async () => {
    opened = 0;
    accepted = [];
    const port = await startServer();
    link = createSmtpLink({ url: `smtp://127.0.0.1:${port}`, timeouts, idleMs: IDLE_MS });
  });

  /** The server ends every open connection, as one does after an idle timeout of its own. */
  const closeServerSide = () => {
    for (const connection of server.connections) connection.close();
  };

  afterEach(async () => {
    link.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('messages go one after another over one connection, a refusal included', async () => {
    await link.send(message('first@example.test'));
    await assert.rejects(link.send(message('nobody@example.test')), { responseCode: 550 });
    // Asked together, they still take turns on the connection.
    await Promise.all([link.send(message('second@example.test')), link.send(message('third@example.test'))]);
    assert.deepEqual(accepted, ['first@example.test', 'second@example.test', 'third@example.test']);
    assert.equal(opened, 1);
  });

  test('a connection the server closed is not used again: the next message opens another', async () => {
    await link.send(message('before@example.test'));
    closeServerSide();
    await connectionsClosed(1);
    await link.send(message('after@example.test'));
    assert.deepEqual(accepted, ['before@example.test', 'after@example.test']);
    assert.equal(opened, 2);
  });

  test('a message sent as the server closes the kept connection goes over a fresh one', async () => {
    await link.send(message('before@example.test'));
    // Closed by the server and sent to at once: the link learns of the close only by the send failing.
    closeServerSide();
    await link.send(message('caught@example.test'));
    assert.deepEqual(accepted, ['before@example.test', 'caught@example.test']);
    assert.equal(opened, 2);
  });

  test('a connection unused for its idle time is closed, and the next message opens another', async () => {
    await link.send(message('before@example.test'));
    const sentAt = Date.now();
    await connectionsClosed(1);
    assert.ok(Date.now() - sentAt >= IDLE_MS - 20, `closed after ${Date.now() - sentAt} ms`);
    await link.send(message('after@example.test'));
    assert.deepEqual(accepted, ['before@example.test', 'after@example.test']);
    assert.equal(opened, 2);
  });

  test('after 100 messages the next goes over a fresh connection', async () => {
    for (let i = 0; i < 101; i++) await link.send(message(`m${i}@example.test`));
    assert.equal(accepted.length, 101);
    assert.equal(opened, 2);
  });

  test('a server that cannot be reached fails the send, and a later one connects', async () => {
    const { port } = server.server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // No SMTP code: the mail service counts it as worth another try.
    await assert.rejects(link.send(message('lost@example.test')), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'ESOCKET');
      assert.equal('responseCode' in error, false);
      return true;
    });
    await startServer(port);
    await link.send(message('found@example.test'));
    assert.deepEqual(accepted, ['found@example.test']);
  });

  test("the URL's credentials log in, once a connection", { timeout: 10_000 }, async () => {
    const logins: string[] = [];
    let closedOne = () => {};
    const refusedClosed = new Promise<void>((resolve) => {
      closedOne = resolve;
    });
    const guarded = new SMTPServer({
      // The session that never logged in (the refused one) ending, not the logged-in one.
      onClose: (session) => {
        if (!session.user) closedOne();
      },
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth: ({ username, password }, _session, callback) => {
        logins.push(`${username}:${password}`);
        return password === 'p@ss word'
          ? callback(null, { user: username })
          : callback(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }));
      },
      onData: (stream, _session, callback) => {
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    await new Promise<void>((resolve) => guarded.listen(0, '127.0.0.1', resolve));
    const { port } = guarded.server.address() as AddressInfo;
    const authed = createSmtpLink({ url: `smtp://mailer:p%40ss%20word@127.0.0.1:${port}`, timeouts });
    const refused = createSmtpLink({ url: `smtp://mailer:wrong@127.0.0.1:${port}`, timeouts });
    try {
      await authed.send(message('a@example.test'));
      await authed.send(message('b@example.test'));
      assert.deepEqual(logins, ['mailer:p@ss word']);
      await assert.rejects(refused.send(message('c@example.test')), { responseCode: 535 });
      // The refused session is not left open on the server; the logged-in one is.
      await refusedClosed;
      assert.equal(guarded.connections.size, 1);
    } finally {
      authed.close();
      refused.close();
      await new Promise<void>((resolve) => guarded.close(() => resolve()));
    }
  });
});
