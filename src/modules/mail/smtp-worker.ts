// The SMTP sender's thread (smtp-sender.ts): it renders a mail's words (templates.ts) and
// writes a booking's invitation (calendar.ts), and nodemailer composes each message and sends
// it over one pooled connection. A request is a drain's group, sent in order; the answer is an
// outcome a message, with the SMTP server's response code when one fails, so the mail service
// can tell a refusal from a hiccup.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createTransport } from 'nodemailer';
import { bookingCalendar } from './calendar.js';
import {
  isPermanent,
  type SenderMessage,
  type SenderReply,
  type SenderRequest,
  type SendOutcome,
  type SmtpSenderOptions,
} from './smtp-sender.js';
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

/** Renders, composes and sends one message; its failure as the SMTP server gave it. */
async function sendOne({ body, calendar, ...message }: SenderMessage): Promise<SendOutcome> {
  try {
    const words = body && renderMail(body);
    await transport.sendMail({
      ...message,
      ...(words ? { text: words.text, html: words.html } : {}),
      // The invitation both as the calendar part clients act on and as a file to open.
      ...(calendar ? { icalEvent: bookingCalendar(calendar) } : {}),
    });
    return {};
  } catch (error) {
    // Words or a calendar that cannot be written fail their message, not the thread.
    const { message, responseCode } = error as { message?: unknown; responseCode?: unknown };
    return {
      error: {
        message: typeof message === 'string' ? message : String(error),
        responseCode: typeof responseCode === 'number' ? responseCode : null,
      },
    };
  }
}

port.on('message', async (request: SenderRequest | 'close') => {
  if (request === 'close') {
    transport.close();
    port.close();
    return;
  }
  const outcomes: SendOutcome[] = [];
  for (const message of request.messages) {
    const outcome = await sendOne(message);
    outcomes.push(outcome);
    // A hiccup (a 4xx, a dropped connection) would fail the next ones too: the drain tries again later.
    if (outcome.error && !isPermanent(outcome.error)) break;
  }
  port.postMessage({ id: request.id, outcomes } satisfies SenderReply);
});
