// A mail catcher: a real SMTP server on loopback (the `smtp-server` package) that keeps
// every message it receives in memory, and a small admin HTTP API listing them. Used by
// the tests and, when SMTP_URL is unset, by `npm start` in development, so mail the
// service sends can be read without a real mailbox. A message is kept as received and
// parsed (`mailparser`) the first time it is read: parsing costs as much CPU as sending,
// and in development the catcher shares the service's process.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface MailCatcherOptions {
  /** SMTP listen port; 0 (default) picks a free one. */
  smtpPort?: number;
  /** Admin HTTP listen port; 0 (default) picks a free one. */
  httpPort?: number;
  /** Listen host of both; loopback by default. */
  host?: string;
  /** Messages kept; the oldest go first past it. Default 1000. */
  maxMessages?: number;
  /** Largest message accepted, in bytes (the SMTP SIZE limit). Default 10 MiB. */
  maxMessageBytes?: number;
}

export interface CaughtAttachment {
  filename: string | null;
  contentType: string;
  size: number;
  /** The content as text (UTF-8): attachments here are calendars and other text. */
  content: string;
}

export interface CaughtMessage {
  /** The catcher's own id of the message. */
  id: string;
  receivedAt: string;
  /** The SMTP envelope: who the client said it was from and every RCPT TO. */
  envelope: { from: string | null; to: string[] };
  messageId: string | null;
  from: string | null;
  to: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  attachments: CaughtAttachment[];
  /** The whole message as received (RFC 5322 source). */
  raw: string;
}

export interface MailCatcher {
  /** Where the service sends: `smtp://127.0.0.1:<port>`; use it as SMTP_URL. */
  smtpUrl: string;
  /** Base URL of the admin API: GET /__admin/messages, DELETE /__admin/messages. */
  url: string;
  /** Every message kept, oldest first (parsed on first read). */
  messages(): Promise<CaughtMessage[]>;
  /** How many messages are kept, without parsing them. */
  count(): number;
  /** Resolves with the messages once `count` are kept (rejects after `timeoutMs`). */
  waitForMessages(count: number, timeoutMs?: number): Promise<CaughtMessage[]>;
  clear(): void;
  close(): Promise<void>;
}

const addresses = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((group) =>
    group.value.map((address) => address.address ?? '').filter(Boolean),
  );

export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<MailCatcher> {
  const host = options.host ?? '127.0.0.1';
  const maxMessages = options.maxMessages ?? 1000;
  const maxMessageBytes = options.maxMessageBytes ?? 10 * 1024 * 1024;
  const kept: Received[] = [];
  let waiters: Array<() => void> = [];
  const parsedAll = () => Promise.all(kept.map(parsedOf));

  const smtp = new SMTPServer({
    // Any client, any (or no) credentials: it is a catcher on loopback, not a relay.
    authOptional: true,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'catcher' }),
    disabledCommands: ['STARTTLS'],
    size: maxMessageBytes,
    banner: 'Mail catcher',
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error('Message exceeds the size limit'), { responseCode: 552 }));
          return;
        }
        // Kept before the 250 answer, so a client's send resolves only once it is listed.
        kept.push({
          id: randomUUID(),
          receivedAt: new Date().toISOString(),
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          },
          raw: Buffer.concat(chunks),
          parsed: null,
        });
        if (kept.length > maxMessages) kept.splice(0, kept.length - maxMessages);
        const woken = waiters;
        waiters = [];
        for (const wake of woken) wake();
        callback();
      });
    },
  });
  // A client that drops the connection is its own business; the catcher goes on.
  smtp.on('error', () => {});

  const admin = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://catcher').pathname;
    if (path === '/__admin/messages' && request.method === 'GET') return void answer(response, parsedAll());
    if (path === '/__admin/messages' && request.method === 'DELETE') {
      kept.length = 0;
      return json(response, 200, { cleared: true });
    }
    const one = /^\/__admin\/messages\/([^/]+)$/.exec(path);
    if (one && request.method === 'GET') {
      const message = kept.find((candidate) => candidate.id === decodeURIComponent(one[1]!));
      return message
        ? void answer(response, parsedOf(message))
        : json(response, 404, { error: 'No such message' });
    }
    return json(response, 404, { error: 'Unknown admin route' });
  });

  const listen = (
    server: { listen: (port: number, host: string, done: () => void) => unknown },
    port: number,
  ) => new Promise<void>((resolve) => server.listen(port, host, resolve));
  await listen(smtp, options.smtpPort ?? 0);
  await listen(admin, options.httpPort ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  const httpPort = (admin.address() as AddressInfo).port;

  return {
    smtpUrl: `smtp://${urlHost}:${smtpPort}`,
    url: `http://${urlHost}:${httpPort}`,
    messages: parsedAll,
    count: () => kept.length,
    waitForMessages(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== check);
          reject(new Error(`The catcher holds ${kept.length} messages, not ${count}, after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (kept.length < count) return void waiters.push(check);
          clearTimeout(timer);
          resolve(parsedAll());
        };
        check();
      });
    },
    clear() {
      kept.length = 0;
    },
    close: () =>
      Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        new Promise<void>((resolve) => {
          admin.close(() => resolve());
          admin.closeAllConnections();
        }),
      ]).then(() => undefined),
  };
}

/** A message as received; `parsed` once it was first read. */
interface Received extends Pick<CaughtMessage, 'id' | 'receivedAt' | 'envelope'> {
  raw: Buffer;
  parsed: Promise<CaughtMessage> | null;
}

/** The message as the admin API lists it, parsed once. */
function parsedOf(message: Received): Promise<CaughtMessage> {
  message.parsed ??= simpleParser(message.raw).then((parsed) => ({
    id: message.id,
    receivedAt: message.receivedAt,
    envelope: message.envelope,
    messageId: parsed.messageId ?? null,
    from: addresses(parsed.from)[0] ?? null,
    to: addresses(parsed.to),
    subject: parsed.subject ?? null,
    text: parsed.text ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    attachments: parsed.attachments.map((attachment) => ({
      filename: attachment.filename ?? null,
      contentType: attachment.contentType,
      size: attachment.size,
      content: attachment.content.toString('utf8'),
    })),
    raw: message.raw.toString('utf8'),
  }));
  return message.parsed;
}

function answer(response: ServerResponse, body: Promise<unknown>): void {
  body.then(
    (value) => json(response, 200, value),
    (error: Error) => json(response, 500, { error: `Could not parse a message: ${error.message}` }),
  );
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
