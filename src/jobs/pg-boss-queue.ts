import type { FastifyBaseLogger } from 'fastify';
import type PgBoss from 'pg-boss';
import type { Db } from '../db/database.js';
import { asDomainError } from '../lib/errors.js';
import { loadDriver } from '../lib/load-driver.js';
import { localRepeats } from './local-repeats.js';
import type { JobHandler, JobQueue, WorkOptions } from './queue.js';
import { retryOf } from './retry.js';

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
    loadDriver<Record<'completeJobs' | 'failJobsById' | 'createQueue', (schema: string) => string>>(
      'pg-boss/src/plans.js',
    );
  const jobEnds = new Set([plans.completeJobs(schema), plans.failJobsById(schema)]);
  const createQueue = plans.createQueue(schema);
  const executeSql = async (text: string, values?: unknown[]) => {
    if (text === createQueue) return oneAtATime(pool, schema, text, values);
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

/**
 * A statement run while holding a transaction-scoped advisory lock of the job schema: instances
 * starting together on a new database each create the same queues, and pg-boss 10.4's
 * `create_queue` (an insert, then a partition table and its constraints) deadlocks when two run
 * at once. One at a time, the later ones find the queue there and do nothing.
 */
async function oneAtATime(pool: NonNullable<Db['pool']>, schema: string, text: string, values?: unknown[]) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`${schema}.create_queue`]);
    const result = await client.query(text, values);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * How often an idle queue looks for jobs nobody told it of (a periodic run the schedule queued,
 * a retry come due, a job another instance sent but did not run). Each look is a statement per
 * queue, about two dozen queues: at 1 s they were the busiest statement of an idle service and
 * a few percent of a busy one's. A job this instance sends is looked for at once (`send`), and a
 * queue that found jobs looks again at once, so neither waits for this.
 */
const IDLE_POLL_SECONDS = 10;

/** Creates each handler's queue (its retry policy) and starts polling it; answers each queue's worker. */
async function startWorkers(
  boss: PgBoss,
  handlers: ReadonlyMap<string, { handler: JobHandler<object>; options: WorkOptions }>,
): Promise<Map<string, string>> {
  const workers = new Map<string, string>();
  for (const [name, { handler, options }] of handlers) {
    const retry = retryOf(options);
    await boss.createQueue(name, {
      name,
      policy: options.deduplicate ? 'stately' : 'standard',
      retryLimit: retry.retryLimit,
      retryDelay: retry.retryDelaySeconds,
      retryBackoff: true,
    });
    const worker = await boss.work<object>(
      name,
      { pollingIntervalSeconds: IDLE_POLL_SECONDS },
      async (jobs) => {
        // More may wait behind these: the worker looks again as soon as they are done.
        const self = workers.get(name);
        if (self) boss.notifyWorker(self);
        for (const job of jobs) await handler(job.data);
      },
    );
    workers.set(name, worker);
  }
  return workers;
}

export function pgBossQueue(
  db: Db,
  pool: NonNullable<Db['pool']>,
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
): JobQueue {
  const boss = createBoss(db, pool, log);
  const handlers = new Map<string, { handler: JobHandler<object>; options: WorkOptions }>();
  const periodic = new Map<string, number>();
  const repeats = localRepeats(log);
  let workers = new Map<string, string>();
  let started = false;

  return {
    kind: 'pg-boss',
    work(name, handler, options = {}) {
      handlers.set(name, { handler: handler as JobHandler<object>, options });
    },
    async send(name, data, options = {}) {
      await boss.send(name, data, options.singletonKey ? { singletonKey: options.singletonKey } : {});
      // This instance's worker of the queue looks now, not at its next idle poll.
      const worker = workers.get(name);
      if (worker) boss.notifyWorker(worker);
    },
    every(name, minutes) {
      periodic.set(name, minutes);
    },
    repeat: repeats.add,
    async start() {
      await boss.start();
      started = true;
      workers = await startWorkers(boss, handlers);
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
