import type { JobQueue } from '../../jobs/queue.js';
import type { WebhooksContext } from './context.js';
import type { LaneTarget } from './lanes.js';

/** Turns new outbox events into deliveries, then sends what is due. */
export const WEBHOOK_DISPATCH_JOB = 'webhooks.dispatch';
/** Sends the deliveries that are due (after a test ping, a manual retry, a reactivation). */
export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
/** Deletes deliveries past the retention. */
export const WEBHOOK_PURGE_JOB = 'webhooks.purge';

/** Queues the delivery job (once, however many ask before it runs). */
export const wakeDelivery = (jobs: JobQueue) => jobs.send(WEBHOOK_DELIVER_JOB, {}, { singletonKey: 'due' });

/** What the jobs and the outbox's wake-up run (dispatcher.ts, sending.ts, retention.ts). */
export interface WebhookWork {
  dispatch(): Promise<unknown>;
  dispatchAll(): Promise<{ targets: LaneTarget[] }>;
  deliverDue(): Promise<number>;
  purge(): Promise<number>;
  /** Starts these endpoints' lanes on this instance. */
  wake(targets: LaneTarget[]): void;
}

/** Registers the dispatch, delivery and purge jobs, and the dispatch the outbox's new events start. */
export function scheduleWebhookJobs(ctx: WebhooksContext, work: WebhookWork): void {
  const { jobs, outbox, repo } = ctx;
  const { dispatch, dispatchAll, deliverDue, purge } = work;
  // Retries are the deliveries' own schedule (next_attempt_at), so a failed send is no job failure.
  jobs.work(
    WEBHOOK_DISPATCH_JOB,
    async () => {
      await dispatch();
      await deliverDue();
    },
    { retryLimit: 0, deduplicate: true },
  );
  jobs.every(WEBHOOK_DISPATCH_JOB, 1);
  jobs.work(WEBHOOK_DELIVER_JOB, async () => void (await deliverDue()), { retryLimit: 0, deduplicate: true });
  jobs.work(WEBHOOK_PURGE_JOB, async () => void (await purge()), { retryLimit: 0, deduplicate: true });
  jobs.every(WEBHOOK_PURGE_JOB, 60);
  // New deliveries start their endpoints' lanes on this instance at once; the sending never
  // holds up the dispatching, and one endpoint's sending never holds up another's.
  outbox.onNewEvents(
    'webhooks',
    async () => {
      work.wake((await dispatchAll()).targets);
    },
    { idle: async () => !(await repo.anyActiveEndpoint()) },
  );
}
