import { Worker } from 'node:worker_threads';
import type { SendMailOptions } from 'nodemailer';
import type { MailCalendar } from './schemas.js';

/**
 * Sends mail over SMTP from a worker thread of its own (smtp-worker.ts). Writing the
 * invitation, composing the MIME message and speaking SMTP cost 1-2 ms of CPU a mail,
 * several bookings' worth; on its own thread that work takes a core the request thread
 * leaves idle instead of the request thread itself. The thread starts with the first mail
 * and is started again after a crash; sends in flight then fail as transient (the drain
 * tries them again).
 */
export interface SmtpSender {
  send(message: SenderMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a send carries to the thread, plain data: nodemailer's `sendMail` options, and the
 * booking's invitation as facts, which the thread writes as iCalendar (calendar.ts).
 */
export type SenderMessage = Pick<
  SendMailOptions,
  'from' | 'to' | 'replyTo' | 'subject' | 'text' | 'html' | 'messageId'
> & { calendar?: MailCalendar };

export interface SmtpSenderOptions {
  url: string;
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number };
}

export interface SenderRequest {
  id: number;
  message: SenderMessage;
}

export type SenderReply =
  | { id: number; error?: undefined }
  | { id: number; error: { message: string; responseCode: number | null } };

/** The worker's entry: its compiled file beside this one, or its source under tsx (the tests). */
const ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './smtp-worker.ts' : './smtp-worker.js',
  import.meta.url,
);

function startWorker(options: SmtpSenderOptions): Worker {
  if (ENTRY.pathname.endsWith('.js')) return new Worker(ENTRY, { workerData: options });
  // A worker does not inherit tsx's loader: it registers it, then imports the source.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); });`;
  return new Worker(boot, { eval: true, workerData: options });
}

export function createSmtpSender(options: SmtpSenderOptions): SmtpSender {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  const failAll = (reason: string) => {
    for (const { reject } of pending.values()) reject(new Error(reason));
    pending.clear();
  };
  /** A send in flight keeps the process running; an idle sender never does. */
  const settled = (target: Worker) => {
    if (pending.size === 0) target.unref();
  };

  function running(): Worker {
    if (worker) return worker;
    const started = startWorker(options);
    started.on('message', (reply: SenderReply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      settled(started);
      if (!reply.error) return waiting.resolve();
      waiting.reject(
        Object.assign(
          new Error(reply.error.message),
          reply.error.responseCode === null ? {} : { responseCode: reply.error.responseCode },
        ),
      );
    });
    started.on('error', (error) => {
      if (worker === started) worker = null;
      failAll(`The SMTP sender stopped: ${error.message}`);
    });
    started.on('exit', () => {
      if (worker === started) worker = null;
      failAll('The SMTP sender stopped');
    });
    worker = started;
    return started;
  }

  return {
    send(message) {
      const id = nextId++;
      const target = running();
      target.ref();
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        try {
          target.postMessage({ id, message } satisfies SenderRequest);
        } catch (error) {
          // Not plain data (the clone refused it): nothing was sent, nothing waits for it.
          pending.delete(id);
          settled(target);
          reject(error);
        }
      });
    },
    async close() {
      const stopping = worker;
      worker = null;
      if (!stopping) return;
      const exited = new Promise((resolve) => stopping.once('exit', resolve));
      stopping.postMessage('close');
      // The pool closes its connection and the thread ends by itself; terminate if it lingers.
      const timer = setTimeout(() => void stopping.terminate(), 1_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
