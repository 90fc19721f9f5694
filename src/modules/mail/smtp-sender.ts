import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MessageParts } from './mime.js';
import type { MailCalendar } from './schemas.js';
import type { MailBody } from './templates.js';

/**
 * Sends mail over SMTP from a worker thread of its own (smtp-worker.ts). Rendering the words,
 * writing the invitation and the MIME message and speaking SMTP cost about 1 ms of CPU a mail,
 * a booking's worth; on its own thread that work takes a core the request thread
 * leaves idle instead of the request thread itself. The thread starts with the first mail
 * and is started again after a crash; sends in flight then fail as transient (the drain
 * tries them again).
 */
export interface SmtpSender {
  /**
   * Sends a drain's group in order, in one exchange with the thread (one message each way, not
   * two a mail): an outcome for each message tried, stopping after the first failure worth
   * another try (the rest are not tried). Rejects when nothing can be said of any of them:
   * the thread died, or the messages are not plain data.
   */
  sendAll(messages: readonly SenderMessage[]): Promise<SendOutcome[]>;
  close(): Promise<void>;
}

/**
 * Why a message was not sent: the SMTP server's code, if it answered, and whether trying again
 * is of no use (the server refused it for good with a 5xx, or its words or invitation cannot be
 * written) or may succeed (a 4xx, a dropped connection, a thread that died).
 */
export interface SendFailure {
  message: string;
  responseCode: number | null;
  permanent: boolean;
}

/** A message sent, or why not. */
export type SendOutcome = { error?: undefined } | { error: SendFailure };

/**
 * What a send carries to the thread, plain data: the message's headers and words (mime.ts), the
 * words as facts (`body`), which the thread renders as text and HTML (templates.ts), and the
 * booking's invitation as facts, which it writes as iCalendar (calendar.ts).
 */
export type SenderMessage = Omit<MessageParts, 'calendar'> & { body?: MailBody; calendar?: MailCalendar };

export interface SmtpSenderOptions {
  url: string;
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number };
  /** How long a send may wait on a thread under SCHED_IDLE before the thread takes its share. */
  patienceMs?: number;
}

/** The thread's first word: its task id, and whether it runs under SCHED_IDLE (smtp-worker.ts). */
export interface SenderThread {
  threadId: string | null;
  idle: boolean;
}

export interface SenderRequest {
  id: number;
  messages: readonly SenderMessage[];
}

export interface SenderReply {
  id: number;
  outcomes: SendOutcome[];
}

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

/** A started thread, the sends it owes an answer (and since when): a new thread never answers for an old one. */
interface Thread {
  worker: Worker;
  pending: Map<
    number,
    { since: number; resolve: (outcomes: SendOutcome[]) => void; reject: (error: Error) => void }
  >;
  /** Known once the thread says so; null before, or when it cannot be lifted. */
  idleThreadId: string | null;
  lifted: boolean;
  watch: NodeJS.Timeout | null;
  /** `chrt` runs one after another, so a lift and the fall after it land in order. */
  policy: Promise<unknown>;
}

/**
 * SCHED_IDLE starves the thread for as long as the box stays full (three test files on two
 * cores held a drain's mails back past the test's 10 s). A send waiting longer than `patienceMs` lifts
 * the thread to SCHED_OTHER at nice 10, a tenth of a request's weight, until it owes nothing;
 * then it is idle again.
 */
function createStarvationGuard(patienceMs: number) {
  const chrt = (thread: Thread, args: string[]) => {
    thread.policy = thread.policy.then(
      () =>
        new Promise((resolve) => execFile('chrt', [...args, '--pid', '0', thread.idleThreadId!], resolve)),
    );
  };
  const lift = (thread: Thread) => {
    thread.lifted = true;
    try {
      setPriority(Number(thread.idleThreadId), 10);
    } catch {
      // The thread ended: nothing to lift.
    }
    chrt(thread, ['--other']);
  };
  const look = (thread: Thread) => {
    thread.watch = null;
    if (thread.lifted || thread.pending.size === 0) return;
    const oldest = Math.min(...[...thread.pending.values()].map((send) => send.since));
    const waited = performance.now() - oldest;
    if (waited >= patienceMs) lift(thread);
    else watch(thread, patienceMs - waited);
  };
  const watch = (thread: Thread, ms = patienceMs) => {
    if (thread.idleThreadId === null || thread.lifted || thread.watch) return;
    thread.watch = setTimeout(() => look(thread), ms).unref();
  };
  return {
    watch,
    /** Nothing owed: back to SCHED_IDLE. */
    settled(thread: Thread) {
      if (thread.watch) clearTimeout(thread.watch);
      thread.watch = null;
      if (!thread.lifted) return;
      thread.lifted = false;
      chrt(thread, ['--idle']);
    },
  };
}

export function createSmtpSender(options: SmtpSenderOptions): SmtpSender {
  let current: Thread | null = null;
  let nextId = 1;
  const guard = createStarvationGuard(options.patienceMs ?? 2_000);

  /** A send in flight keeps the process running; an idle sender never does. */
  const settled = (thread: Thread) => {
    if (thread.pending.size > 0) return;
    thread.worker.unref();
    guard.settled(thread);
  };
  const stopped = (thread: Thread, reason: string) => {
    if (current === thread) current = null;
    for (const { reject } of thread.pending.values()) reject(new Error(reason));
    thread.pending.clear();
    if (thread.watch) clearTimeout(thread.watch);
  };

  function running(): Thread {
    if (current) return current;
    const worker = startWorker(options);
    const thread: Thread = {
      worker,
      pending: new Map(),
      idleThreadId: null,
      lifted: false,
      watch: null,
      policy: Promise.resolve(),
    };
    worker.on('message', (reply: SenderReply | SenderThread) => {
      if ('threadId' in reply) {
        thread.idleThreadId = reply.idle ? reply.threadId : null;
        if (thread.pending.size > 0) guard.watch(thread);
        return;
      }
      const waiting = thread.pending.get(reply.id);
      if (!waiting) return;
      thread.pending.delete(reply.id);
      settled(thread);
      waiting.resolve(reply.outcomes);
    });
    worker.on('error', (error) => stopped(thread, `The SMTP sender stopped: ${error.message}`));
    worker.on('exit', () => stopped(thread, 'The SMTP sender stopped'));
    current = thread;
    return thread;
  }

  return {
    sendAll(messages) {
      if (messages.length === 0) return Promise.resolve([]);
      const id = nextId++;
      const thread = running();
      thread.worker.ref();
      return new Promise<SendOutcome[]>((resolve, reject) => {
        thread.pending.set(id, { since: performance.now(), resolve, reject });
        try {
          thread.worker.postMessage({ id, messages } satisfies SenderRequest);
          guard.watch(thread);
        } catch (error) {
          // Not plain data (the clone refused it): nothing was sent, nothing waits for it.
          thread.pending.delete(id);
          settled(thread);
          reject(error);
        }
      });
    },
    async close() {
      const stopping = current;
      current = null;
      if (!stopping) return;
      const exited = new Promise((resolve) => stopping.worker.once('exit', resolve));
      stopping.worker.postMessage('close');
      // The pool closes its connection and the thread ends by itself; terminate if it lingers.
      const timer = setTimeout(() => void stopping.worker.terminate(), 1_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
