import { nowIso } from '../../lib/time.js';
import type { OutboxContext } from './context.js';

/** The job that deletes events past their retention. */
export const OUTBOX_RETENTION_JOB = 'outbox_retention';
/** How long events are kept (DECISIONS.md: 30 days). */
export const OUTBOX_RETENTION_DAYS = 30;
/** Rows one statement of the retention job deletes; it repeats until a batch comes back short. */
const RETENTION_BATCH = 5_000;

/** Deletes events older than the retention at `now`; answers how many. */
export async function pruneEvents({ repo }: OutboxContext, now = nowIso()): Promise<number> {
  const cutoff = new Date(Date.parse(now) - OUTBOX_RETENTION_DAYS * 86_400_000).toISOString();
  let deleted = 0;
  for (;;) {
    const batch = await repo.deleteBefore(cutoff, RETENTION_BATCH);
    deleted += batch;
    if (batch < RETENTION_BATCH) return deleted;
  }
}
