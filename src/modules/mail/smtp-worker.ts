// The SMTP sender's thread (smtp-sender.ts): it renders a mail's words (templates.ts), writes a
// booking's invitation (calendar.ts) and the MIME message (mime.ts), and sends it over one SMTP
// connection kept open (smtp-link.ts). A request is a drain's group, sent in order; the answer
// is an outcome a message, with the SMTP server's response code when one fails, so the mail
// service can tell a refusal from a hiccup.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { bookingCalendar } from './calendar.js';
import { type ComposedMessage, composeMessage } from './mime.js';
import { createSmtpLink } from './smtp-link.js';
import type {
  SenderMessage,
  SenderReply,
  SenderRequest,
  SenderThread,
  SendOutcome,
  SmtpSenderOptions,
} from './smtp-sender.js';
import { renderMail } from './templates.js';

const { url, timeouts } = workerData as SmtpSenderOptions;

// Mail can wait, a booking's answer cannot. On Linux this thread (only it: its own task id, from
// /proc/thread-self) runs under SCHED_IDLE, so it gets only the CPU that nothing else wants: a
// nice value is not enough on a full box (a thread at nice 19 beside the bookings still cost them
// a tenth of their throughput here, one under SCHED_IDLE at most 5%: docs/performance.md). Set by
// util-linux's `chrt`, once as the thread starts; without it, nice 10; elsewhere, or without the
// right, the process's priority. The sender is told the thread's id and whether it went idle:
// a box kept full would starve it, so the sender lifts it while a send waits too long.
let threadId: string | null = null;
let idle = false;
try {
  threadId = readlinkSync('/proc/thread-self').split('/').pop()!;
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', threadId], { stdio: 'ignore', timeout: 2_000 });
    idle = true;
  } catch {
    setPriority(Number(threadId), 10);
  }
} catch {
  // Not Linux, or not allowed: the thread runs at the process's priority.
}

// One connection kept open: a drain's mails go over it in turn, not a handshake each.
const link = createSmtpLink({ url, timeouts });
const port = parentPort!;
port.postMessage({ threadId, idle } satisfies SenderThread);

const messageOf = (error: unknown) =>
  typeof (error as { message?: unknown })?.message === 'string' ? (error as Error).message : String(error);

/** Renders, composes and sends one message; its failure as the SMTP server gave it. */
async function sendOne({ body, calendar, ...message }: SenderMessage): Promise<SendOutcome> {
  let composed: ComposedMessage;
  try {
    const words = body && renderMail(body);
    composed = composeMessage({
      ...message,
      ...(words ? { text: words.text, html: words.html } : {}),
      ...(calendar ? { calendar: bookingCalendar(calendar) } : {}),
    });
  } catch (error) {
    // Facts that cannot be written now never will be: a failure for good, so the drain goes on
    // past it (marked failed) instead of stopping at it on every run.
    return {
      error: { message: `cannot be written: ${messageOf(error)}`, responseCode: null, permanent: true },
    };
  }
  try {
    await link.send(composed);
    return {};
  } catch (error) {
    const { responseCode } = error as { responseCode?: unknown };
    const code = typeof responseCode === 'number' ? responseCode : null;
    // A 5xx is the server's refusal for good; a 4xx or no answer at all may pass later.
    return {
      error: {
        message: messageOf(error),
        responseCode: code,
        permanent: code !== null && code >= 500 && code < 600,
      },
    };
  }
}

port.on('message', async (request: SenderRequest | 'close') => {
  if (request === 'close') {
    link.close();
    port.close();
    return;
  }
  const outcomes: SendOutcome[] = [];
  for (const message of request.messages) {
    const outcome = await sendOne(message);
    outcomes.push(outcome);
    // A hiccup (a 4xx, a dropped connection) would fail the next ones too: the drain tries again later.
    if (outcome.error && !outcome.error.permanent) break;
  }
  port.postMessage({ id: request.id, outcomes } satisfies SenderReply);
});
