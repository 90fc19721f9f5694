import { type JobDeclaration, SWEEP_OPTIONS, sweep } from '../../jobs/declarations.js';
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

/**
 * The dispatch, delivery and purge jobs (module.ts declares them). Retries are the
 * deliveries' own schedule (next_attempt_at), so a failed send is no job failure.
 */
export function webhookJobs({
  dispatch,
  deliverDue,
  purge,
}: Pick<WebhookWork, 'dispatch' | 'deliverDue' | 'purge'>): JobDeclaration[] {
  return [
    sweep(WEBHOOK_DISPATCH_JOB, 1, async () => {
      await dispatch();
      await deliverDue();
    }),
    { name: WEBHOOK_DELIVER_JOB, handler: async () => void (await deliverDue()), options: SWEEP_OPTIONS },
    sweep(WEBHOOK_PURGE_JOB, 60, () => purge()),
  ];
}

/** The dispatch the outbox's new events start. */
export function dispatchOnNewEvents(
  ctx: WebhooksContext,
  work: Pick<WebhookWork, 'dispatchAll' | 'wake'>,
): void {
  const { outbox, repo } = ctx;
  // New deliveries start their endpoints' lanes on this instance at once; the sending never
  // holds up the dispatching, and one endpoint's sending never holds up another's.
  outbox.onNewEvents(
    'webhooks',
    async () => {
      work.wake((await work.dispatchAll()).targets);
    },
    { idle: async () => !(await repo.anyActiveEndpoint()) },
  );
}
