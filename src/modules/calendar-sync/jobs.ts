import type { JobQueue } from '../../jobs/queue.js';
import type { SyncProvider } from './providers/port.js';
import type { PushJob } from './sync-context.js';

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
