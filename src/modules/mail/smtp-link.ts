// One SMTP connection, kept open between sends and used by one send at a time: the sender's
// thread sends a drain's mails in order, so a pool of connections has nothing to share out.
// nodemailer's `SMTPConnection` speaks the protocol (STARTTLS, AUTH, SMTPUTF8, dot-stuffing);
// what is ours is when the connection opens and closes. nodemailer's pooled transport did that
// too, but runs every message through its composer and a stream pipeline first: about 0.9 ms of
// CPU a written booking mail, where the connection's own exchange costs about 0.4.

import { Readable } from 'node:stream';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { ComposedMessage } from './mime.js';

export interface SmtpLinkOptions {
  url: string;
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number };
  /** How long an unused connection stays open: 10 s, before the socket timeout would call the quiet a failure. */
  idleMs?: number;
}

export interface SmtpLink {
  /** Sends one message; rejects with nodemailer's error (its `responseCode` when the server answered). */
  send(message: ComposedMessage): Promise<void>;
  close(): void;
}

/** A fresh connection after this many messages, as nodemailer's pool does (`maxMessages`). */
const MESSAGES_PER_CONNECTION = 100;

/** The server refused the message (its envelope or its data), and the session is still fine. */
const refusedOnly = (error: { code?: string; responseCode?: number }) =>
  (error.code === 'EENVELOPE' || error.code === 'EMESSAGE') && error.responseCode !== 421;

export function createSmtpLink({ url, timeouts, idleMs = 10_000 }: SmtpLinkOptions): SmtpLink {
  const { auth, ...options } = { ...parseConnectionUrl(url), ...timeouts };
  let open: Promise<SMTPConnection> | null = null;
  let sent = 0;
  let idle: NodeJS.Timeout | undefined;

  /** Ends the connection (politely when it is up); the next send opens another. */
  function drop(connection: Promise<SMTPConnection> | null = open) {
    if (connection && connection === open) open = null;
    void connection?.then((c) => c.quit()).catch(() => {});
  }

  function connect(): Promise<SMTPConnection> {
    sent = 0;
    const connecting = new Promise<SMTPConnection>((resolve, reject) => {
      const connection = new SMTPConnection(options);
      // Before the handshake an error fails the connecting; after it, the send in flight gets
      // the same error through its callback, and an idle connection's end is caught below.
      connection.on('error', reject);
      // It ended (the server closed it when idle or shutting down, or it broke): never offered
      // to a later send. Before the handshake, that fails the connecting.
      connection.once('end', () => {
        reject(new Error('The SMTP connection ended before it was ready'));
        if (open === connecting) open = null;
      });
      connection.connect((error?: Error | null) => {
        if (error) return reject(error);
        if (!auth || !connection.allowsAuth) return resolve(connection);
        connection.login(auth, (loginError) => {
          if (!loginError) return resolve(connection);
          reject(loginError);
          // Refused credentials leave the session open: this one is never used, so it ends here.
          connection.close();
        });
      });
    });
    // A connection that never came up is not kept.
    connecting.catch(() => drop(connecting));
    return connecting;
  }

  async function sendNow(message: ComposedMessage, again = false): Promise<void> {
    clearTimeout(idle);
    const reused = open !== null;
    if (!open) open = connect();
    const connecting = open;
    const connection = await connecting;
    // A stream, only to know afterwards whether any of it was read (sent).
    const data = Buffer.from(message.raw, 'utf8');
    const body = new Readable({ read() {} });
    body.push(data);
    body.push(null);
    try {
      await new Promise<void>((resolve, reject) =>
        connection.send({ ...message.envelope, size: data.length }, body, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
      if (++sent >= MESSAGES_PER_CONNECTION) drop(connecting);
    } catch (error) {
      // A refusal leaves the session usable once reset; anything else ends the connection.
      if (refusedOnly(error as { code?: string })) {
        await new Promise<void>((resolve) =>
          connection.reset((resetError) => {
            if (resetError) drop(connecting);
            resolve();
          }),
        );
        throw error;
      }
      drop(connecting);
      // A kept connection the server had closed as the message began (an idle timeout of its
      // own): not a byte of the message went out, so it goes once more over a fresh one.
      if (reused && !again && !body.readableDidRead) return sendNow(message, true);
      throw error;
    } finally {
      // Still the open connection (not dropped above): closed once idle.
      if (open === connecting) idle = setTimeout(() => drop(), idleMs).unref();
    }
  }

  // One exchange at a time on the connection, whoever asks.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    send(message) {
      const sending = queue.then(() => sendNow(message));
      queue = sending.catch(() => {});
      return sending;
    },
    close() {
      clearTimeout(idle);
      drop();
    },
  };
}
