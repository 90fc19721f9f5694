// The SMTP sender's thread (smtp-sender.ts): it renders a mail's words (templates.ts) and
// writes a booking's invitation (calendar.ts), and nodemailer composes each message and sends
// it over one pooled connection. It answers every request by its id, with the SMTP server's
// response code when a send fails, so the mail service can tell a refusal from a hiccup.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createTransport } from 'nodemailer';
import { bookingCalendar } from './calendar.js';
import type { SenderReply, SenderRequest, SmtpSenderOptions } from './smtp-sender.js';
import { renderMail } from './templates.js';

const { url, timeouts } = workerData as SmtpSenderOptions;

// Mail can wait, a booking's answer cannot: on Linux this thread (only it: its own task id,
// from /proc/thread-self) runs at a lower priority than the request thread, so under load the
// scheduler gives the bookings their CPU first and the mail what is left.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // Not Linux, or not allowed: the thread runs at the process's priority.
}

// Pooled: a drain's mails go over one open connection, not a handshake each; one idle
// for 10 s is closed before the socket timeout would call it a failure.
const transport = createTransport({ url, pool: true, idleTimeout: 10_000, ...timeouts });
const port = parentPort!;

port.on('message', (request: SenderRequest | 'close') => {
  if (request === 'close') {
    transport.close();
    port.close();
    return;
  }
  const { body, calendar, ...message } = request.message;
  // In a promise, so that words or a calendar that cannot be written fail their send, not the thread.
  const sent = Promise.resolve().then(() => {
    const words = body && renderMail(body);
    return transport.sendMail({
      ...message,
      ...(words ? { text: words.text, html: words.html } : {}),
      // The invitation both as the calendar part clients act on and as a file to open.
      ...(calendar ? { icalEvent: bookingCalendar(calendar) } : {}),
    });
  });
  sent.then(
    () => port.postMessage({ id: request.id } satisfies SenderReply),
    (error: unknown) => {
      const { message, responseCode } = error as { message?: unknown; responseCode?: unknown };
      port.postMessage({
        id: request.id,
        error: {
          message: typeof message === 'string' ? message : String(error),
          responseCode: typeof responseCode === 'number' ? responseCode : null,
        },
      } satisfies SenderReply);
    },
  );
});
