import type { Config } from '../../config.js';
import { type JobDeclaration, sweep } from '../../jobs/declarations.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { SyncProvider } from './providers/port.js';
import type { PushJob } from './sync-context.js';
import type { SyncWorkers } from './workers.js';

/** Job names (pg-boss queue names on PostgreSQL). */
export const JOBS = {
  pull: 'calendar_sync_pull',
  push: 'calendar_sync_push',
  watch: 'calendar_sync_watch',
  calendars: 'calendar_sync_calendars',
  revoke: 'calendar_sync_revoke',
  poll: 'calendar_sync_poll',
  renew: 'calendar_sync_renew',
} as const;

const RENEW_EVERY_MINUTES = 60;

/**
 * The sync's jobs (module.ts declares them): its workers, and the poll tick every
 * CALENDAR_SYNC_POLL_MINUTES and the channel-renewal tick every hour.
 */
export function syncJobs(workers: SyncWorkers, config: Config): JobDeclaration[] {
  const retry = { retryDelaySeconds: config.calendarSync.retryDelaySeconds };
  return [
    { name: JOBS.pull, handler: workers.pull, options: { retryLimit: 5, ...retry, deduplicate: true } },
    { name: JOBS.push, handler: workers.push, options: { retryLimit: 5, ...retry } },
    // Push is an optimisation over polling: a provider that refuses our webhook is not retried for long.
    { name: JOBS.watch, handler: workers.watch, options: { retryLimit: 2, ...retry, deduplicate: true } },
    {
      name: JOBS.calendars,
      handler: workers.calendars,
      options: { retryLimit: 2, ...retry, deduplicate: true },
    },
    { name: JOBS.revoke, handler: workers.revoke, options: { retryLimit: 3, ...retry } },
    sweep(JOBS.poll, config.calendarSync.pollMinutes, workers.pollOnce),
    sweep(JOBS.renew, RENEW_EVERY_MINUTES, workers.renew),
  ];
}

/** Stops a disconnected provider's channels and revokes its grant. */
export interface RevokeJob {
  userId: number;
  provider: SyncProvider;
  /** Still sealed: job payloads are stored in the database on PostgreSQL. */
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  channels: Array<{ channelId: string; resourceId: string | null }>;
}

/** Queues the sync's background work; a waiting job of a calendar or connection absorbs a new one. */
export function createSyncQueue(jobs: JobQueue) {
  const pull = (mappingId: number) => jobs.send(JOBS.pull, { mappingId }, { singletonKey: `m${mappingId}` });
  const watch = (mappingId: number) =>
    jobs.send(JOBS.watch, { mappingId }, { singletonKey: `m${mappingId}` });
  return {
    pull,
    watch,
    /** A newly mapped or resumed calendar: a pull and a push channel. */
    async start(mappingId: number) {
      await pull(mappingId);
      await watch(mappingId);
    },
    /** A fresh read of the connection's calendar list. */
    calendars: (connectionId: number) =>
      jobs.send(JOBS.calendars, { connectionId }, { singletonKey: `c${connectionId}` }),
    push: (job: PushJob) => jobs.send(JOBS.push, job),
    revoke: (job: RevokeJob) => jobs.send(JOBS.revoke, job),
  };
}

export type SyncQueue = ReturnType<typeof createSyncQueue>;
