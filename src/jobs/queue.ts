import type { FastifyBaseLogger } from 'fastify';
import type PgBoss from 'pg-boss';
import type { Db } from '../db/database.js';
import { asDomainError } from '../lib/errors.js';
import { loadDriver } from '../lib/load-driver.js';

/**
 * Background jobs: calendar sync, channel renewal, data-subject requests.
 * On PostgreSQL they live in a real queue stored in the database (pg-boss),
 * so with N instances each job runs once and a crashed instance's jobs are
 * retried; the SQLite single instance runs the same handlers in-process.
 * Handlers must be idempotent: a job may run again after a crash.
 */
export interface JobQueue {
  readonly kind: 'pg-boss' | 'in-process';
  /** Registers the handler of a job name; call before `start`. */
  work<T extends object>(name: string, handler: JobHandler<T>, options?: WorkOptions): void;
  /**
   * Queues one job. For a job registered with `deduplicate`, a job of that name and
   * `singletonKey` still waiting absorbs the new one (every key needs one then).
   */
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<void>;
  /** Runs `name` every `minutes` (once per period across instances on pg-boss). */
  every(name: string, minutes: number): void;
  /**
   * Runs `handler` on this instance, `ms` after each run ends, while the queue runs: work
   * every instance does for itself, such as noticing new outbox events. Not a job: no
   * retries, no queue; a failure is logged and the next run comes as usual.
   */
  repeat(name: string, ms: number, handler: () => Promise<void>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when no job is waiting or running (in-process only; tests use it). */
  idle(): Promise<void>;
}

export type JobHandler<T> = (data: T) => Promise<void>;
export interface WorkOptions {
  /** Attempts after the first; each waits twice as long as the one before. */
  retryLimit?: number;
  /** Seconds before the first retry. */
  retryDelaySeconds?: number;
  /** One waiting job per singleton key (a running one does not block the next). */
  deduplicate?: boolean;
}
export interface SendOptions {
  singletonKey?: string;
}

const DEFAULT_RETRY = { retryLimit: 5, retryDelaySeconds: 10 };
/** The longest a failing `repeat` waits between runs. */
const REPEAT_BACKOFF_MAX_MS = 30_000;

export function createJobQueue(
  db: Db,
  mode: 'auto' | 'in-process',
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
): JobQueue {
  if (db.dialect === 'postgres' && db.pool && mode === 'auto') return pgBossQueue(db, db.pool, log);
  return inProcessQueue(log);
}

/**
 * A pg-boss instance on the app's pool, in its own schema, whose job ends tolerate an outage
 * and whose errors are logged.
 */
function createBoss(
  db: Db,
  pool: NonNullable<Db['pool']>,
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
): PgBoss {
  const Boss = loadDriver<typeof PgBoss>('pg-boss');
  const schema = db.schema ? `${db.schema}_jobs` : 'pgboss';
  // pg-boss 10.4's worker records a job's end (`complete` or `fail`) without awaiting it: with
  // the database away at that moment the statement rejects with no handler, and an unhandled
  // rejection ends the process. Those two statements answer "nothing recorded" instead: the job
  // stays active, expires and runs again, as after a crash (every handler may run twice).
  const plans =
    loadDriver<Record<'completeJobs' | 'failJobsById', (schema: string) => string>>('pg-boss/src/plans.js');
  const jobEnds = new Set([plans.completeJobs(schema), plans.failJobsById(schema)]);
  const executeSql = async (text: string, values?: unknown[]) => {
    if (!jobEnds.has(text)) return pool.query(text, values);
    try {
      return await pool.query(text, values);
    } catch (error) {
      log.warn(
        { cause: asDomainError(error)?.message ?? String(error) },
        'job queue: a job end not recorded',
      );
      return { rows: [{ count: '0' }] };
    }
  };
  const boss = new Boss({
    // The app's own pool: the same database and credentials, no second set of connections.
    db: { executeSql },
    schema,
  });
  // Its workers and maintenance go on polling through an outage (each poll takes a pooled
  // connection afresh), so jobs resume by themselves once the database is back.
  boss.on('error', (error) => {
    if (asDomainError(error)?.code === 'UNAVAILABLE')
      log.warn({ cause: error.message }, 'job queue: database unavailable');
    else log.error({ err: error }, 'job queue error');
  });
  return boss;
}

/** Creates each handler's queue (its retry policy) and starts polling it. */
async function startWorkers(
  boss: PgBoss,
  handlers: ReadonlyMap<string, { handler: JobHandler<object>; options: WorkOptions }>,
): Promise<void> {
  for (const [name, { handler, options }] of handlers) {
    const retry = { ...DEFAULT_RETRY, ...options };
    await boss.createQueue(name, {
      name,
      policy: options.deduplicate ? 'stately' : 'standard',
      retryLimit: retry.retryLimit,
      retryDelay: retry.retryDelaySeconds,
      retryBackoff: true,
    });
    await boss.work<object>(name, { pollingIntervalSeconds: 1 }, async (jobs) => {
      for (const job of jobs) await handler(job.data);
    });
  }
}

function pgBossQueue(
  db: Db,
  pool: NonNullable<Db['pool']>,
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
): JobQueue {
  const boss = createBoss(db, pool, log);
  const handlers = new Map<string, { handler: JobHandler<object>; options: WorkOptions }>();
  const periodic = new Map<string, number>();
  const repeats = localRepeats(log);
  let started = false;

  return {
    kind: 'pg-boss',
    work(name, handler, options = {}) {
      handlers.set(name, { handler: handler as JobHandler<object>, options });
    },
    async send(name, data, options = {}) {
      await boss.send(name, data, options.singletonKey ? { singletonKey: options.singletonKey } : {});
    },
    every(name, minutes) {
      periodic.set(name, minutes);
    },
    repeat: repeats.add,
    async start() {
      await boss.start();
      started = true;
      await startWorkers(boss, handlers);
      for (const [name, minutes] of periodic) await boss.schedule(name, `*/${minutes} * * * *`, {});
      repeats.start();
    },
    async stop() {
      await repeats.stop();
      if (started) await boss.stop({ graceful: true, close: false, timeout: 5_000, wait: true });
    },
    async idle() {},
  };
}

// One closure on purpose: every method shares the counters (running, waiting, retries) that
// idle() settles on; split apart they would be passed around as mutable state.
function inProcessQueue(log: Pick<FastifyBaseLogger, 'error' | 'warn'>): JobQueue {
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
    const retry = { ...DEFAULT_RETRY, ...entry.options };
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

/** The `repeat` work of one queue: timers started with the queue, stopped (and awaited) with it. */
function localRepeats(log: Pick<FastifyBaseLogger, 'error' | 'warn'>) {
  const registered: Array<{ name: string; ms: number; handler: () => Promise<void>; failures: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let running = false;

  // A failing run (the database down, say) waits twice as long each time, up to 30 s, and is
  // logged once per streak: work every 100 ms must not flood the log or the database.
  const delayOf = (entry: (typeof registered)[number]) =>
    entry.failures === 0 ? entry.ms : Math.min(entry.ms * 2 ** entry.failures, REPEAT_BACKOFF_MAX_MS);

  function schedule(entry: (typeof registered)[number]) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = entry
        .handler()
        .then(
          () => {
            entry.failures = 0;
          },
          (error: unknown) => {
            if (entry.failures === 0) log.warn({ err: error, job: entry.name }, 'repeated work failed');
            entry.failures += 1;
          },
        )
        .finally(() => {
          inFlight.delete(run);
          if (running) schedule(entry);
        });
      inFlight.add(run);
    }, delayOf(entry));
    timer.unref();
    timers.add(timer);
  }

  return {
    add(name: string, ms: number, handler: () => Promise<void>) {
      const entry = { name, ms, handler, failures: 0 };
      registered.push(entry);
      if (running) schedule(entry);
    },
    start() {
      if (running) return;
      running = true;
      for (const entry of registered) schedule(entry);
    },
    async stop() {
      running = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(inFlight);
    },
  };
}
