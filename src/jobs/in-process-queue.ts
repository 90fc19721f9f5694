import type { FastifyBaseLogger } from 'fastify';
import { localRepeats } from './local-repeats.js';
import type { JobHandler, JobQueue, WorkOptions } from './queue.js';
import { retryOf } from './retry.js';

// One closure on purpose: every method shares the counters (running, waiting, retries) that
// idle() settles on; split apart they would be passed around as mutable state.
export function inProcessQueue(log: Pick<FastifyBaseLogger, 'error' | 'warn'>): JobQueue {
  const handlers = new Map<string, { handler: JobHandler<object>; options: WorkOptions }>();
  const waiting = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let running = 0;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];
  let pendingRetries = 0;
  const repeats = localRepeats(log);

  const settle = () => {
    if (running > 0 || waiting.size > 0 || pendingRetries > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  async function run(name: string, data: object, attempt: number): Promise<void> {
    const entry = handlers.get(name);
    if (!entry || stopped) {
      // A job sent just before `stop` leaves the waiting set here: `idle` may be waiting on it.
      settle();
      return;
    }
    const retry = retryOf(entry.options);
    running += 1;
    try {
      await entry.handler(data);
    } catch (error) {
      if (attempt < retry.retryLimit) {
        const delay = retry.retryDelaySeconds * 1000 * 2 ** attempt;
        log.warn({ err: error, job: name, attempt }, 'job failed; retrying');
        pendingRetries += 1;
        const timer = setTimeout(() => {
          timers.delete(timer);
          pendingRetries -= 1;
          void run(name, data, attempt + 1);
        }, delay);
        timers.add(timer);
      } else {
        log.error({ err: error, job: name }, 'job failed for good');
      }
    } finally {
      running -= 1;
      settle();
    }
  }

  const queue: JobQueue = {
    kind: 'in-process',
    work(name, handler, options = {}) {
      handlers.set(name, { handler: handler as JobHandler<object>, options });
    },
    async send(name, data, options = {}) {
      const entry = handlers.get(name);
      if (!entry) throw new Error(`No handler for job ${name}`);
      const key =
        entry.options.deduplicate && options.singletonKey !== undefined
          ? `${name}\u0000${options.singletonKey}`
          : undefined;
      if (key !== undefined) {
        if (waiting.has(key)) return;
        waiting.add(key);
      }
      const token = key ?? `${name}\u0000${Math.random()}`;
      waiting.add(token);
      // Never on the request path: the job starts after the current I/O turn.
      setImmediate(() => {
        waiting.delete(token);
        void run(name, data, 0);
      });
    },
    every(name, minutes) {
      const timer = setInterval(() => void queue.send(name, {}, { singletonKey: 'every' }), minutes * 60_000);
      timer.unref();
      timers.add(timer);
    },
    repeat: repeats.add,
    async start() {
      repeats.start();
    },
    async stop() {
      await repeats.stop();
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      pendingRetries = 0;
      await queue.idle();
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      });
    },
  };
  return queue;
}
