import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { activeTracer, inSpan } from '../lib/tracing.js';
import { inProcessQueue } from './in-process-queue.js';
import { pgBossQueue } from './pg-boss-queue.js';

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

/** The (incubating) messaging attributes of a job run's span. */
const ATTR_MESSAGING_SYSTEM = 'messaging.system';
const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';

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

export function createJobQueue(
  db: Db,
  mode: 'auto' | 'in-process',
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
): JobQueue {
  if (db.dialect === 'postgres' && db.pool && mode === 'auto')
    return tracedRuns(pgBossQueue(db, db.pool, log));
  return tracedRuns(inProcessQueue(log));
}

/**
 * Where a job was sent from, kept in its data under this key while tracing runs: the sending
 * span's W3C `traceparent` (and `tracestate`). Taken off before the handler sees the data.
 */
const SENT_FROM = '_traceContext';

type Carrier = Record<string, string>;

/** The active span's context as W3C headers, or undefined outside any traced work. */
function sendingContext(): Carrier | undefined {
  if (!activeTracer() || !trace.getSpan(context.active())) return undefined;
  const carrier: Carrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/**
 * Every run of a job in a span of its own (while tracing runs): a trace of its own, as a
 * job runs apart from whatever sent it, on pg-boss on any instance, linked to the span that
 * sent it (the request, the tool call, the job), so a request is followed across instances;
 * what the handler does (queries, webhook deliveries) nests under it. A throw marks it failed
 * (the queue retries).
 */
function tracedRuns(queue: JobQueue): JobQueue {
  return {
    ...queue,
    kind: queue.kind,
    send<T extends object>(name: string, data: T, options?: SendOptions) {
      const sentFrom = sendingContext();
      return queue.send(name, sentFrom ? { ...data, [SENT_FROM]: sentFrom } : data, options);
    },
    work<T extends object>(name: string, handler: JobHandler<T>, options?: WorkOptions) {
      // One name and options object a queue, not a run (the SDK copies the attributes).
      const spanName = `process ${name}`;
      const spanOptions = {
        kind: SpanKind.CONSUMER,
        root: true,
        attributes: {
          [ATTR_MESSAGING_SYSTEM]: queue.kind,
          [ATTR_MESSAGING_DESTINATION_NAME]: name,
          [ATTR_MESSAGING_OPERATION_TYPE]: 'process',
        },
      };
      queue.work<T & { [SENT_FROM]?: Carrier }>(
        name,
        (sent) => {
          // A scheduled run's data is the queue's own (possibly none): passed on as it came.
          const { [SENT_FROM]: sentFrom, ...rest } = sent ?? {};
          const data = (sentFrom ? rest : sent) as T;
          if (!activeTracer()) return handler(data);
          const sender = sentFrom && trace.getSpanContext(propagation.extract(ROOT_CONTEXT, sentFrom));
          const links = sender ? [{ context: sender }] : [];
          return inSpan(spanName, { ...spanOptions, links }, () => handler(data));
        },
        options,
      );
    },
  };
}
