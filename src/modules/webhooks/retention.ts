import type { WebhooksContext } from './context.js';
import { DAY_MS } from './retry-schedule.js';

/** The delivery log lives as long as the outbox keeps its events. */
const RETENTION_MS = 30 * DAY_MS;
const PURGE_BATCH = 5_000;

/** Deletes deliveries older than the retention at `now`, in batches; answers how many. */
export async function purgeDeliveries(ctx: WebhooksContext, now = Date.now()): Promise<number> {
  const { repo } = ctx;
  const cutoff = new Date(now - RETENTION_MS).toISOString();
  let deleted = 0;
  for (;;) {
    const batch = await repo.deleteBefore(cutoff, PURGE_BATCH);
    deleted += batch;
    if (batch < PURGE_BATCH) return deleted;
  }
}
