import { nowIso } from '../../lib/time.js';
import type { ReservationsContext } from './context.js';
import { ROUND_ROBIN_DAYS } from './round-robin-counts.js';

/**
 * The job that deletes round robin's counter rows (`reservation_lane_days`) of days it no
 * longer reads and folds past days' rows per writer into one (PostgreSQL).
 */
export const RESERVATION_LANE_DAYS_PRUNE_JOB = 'reservations_prune_lane_days';
/** How often it runs (minutes): a day's rows leave the window once a day. */
export const LANE_DAYS_PRUNE_EVERY_MINUTES = 60;
/**
 * Days kept before the window's first (which the count already reads from the reservations):
 * an instance whose clock is behind this one's by up to this much still finds its whole window.
 */
const MARGIN_DAYS = 2;
/** Rows one statement deletes; it repeats until a batch comes back short. */
const PRUNE_BATCH = 1000;
const DAY_MS = 86_400_000;

/** The first day (UTC, YYYY-MM-DD) whose per-writer counter rows stay apart at `now` (PostgreSQL): yesterday. */
export function laneDaysMergedBefore(now: string): string {
  return new Date(Date.parse(now) - DAY_MS).toISOString().slice(0, 10);
}

/** The first day (UTC, YYYY-MM-DD) whose counter rows the prune keeps at `now`. */
export function laneDaysKeptFrom(now: string): string {
  return new Date(Date.parse(now) - (ROUND_ROBIN_DAYS + MARGIN_DAYS) * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The prune job's run (the service's `pruneLaneDays`): round robin counts the whole days after
 * its window's first from the counter (round-robin-counts.ts), so rows of days before the
 * margin never change an answer again; without this the table grows by a day's rows per lane,
 * type and writer for good. Then, on PostgreSQL, the rows of each day before yesterday are
 * folded into one per lane and type (the sum kept), so a count reads one row a day, not one a
 * connection. Answers how many rows went (deleted or folded).
 */
export function createLaneDaysPrune({ repo }: Pick<ReservationsContext, 'repo'>): () => Promise<number> {
  return async function pruneLaneDays() {
    const now = nowIso();
    const deleted = await inBatches((limit) => repo.pruneLaneDays(laneDaysKeptFrom(now), limit));
    const merged = await inBatches((limit) => repo.mergeLaneDayWriters(laneDaysMergedBefore(now), limit));
    return deleted + merged;
  };
}

/** Runs `step` until a batch comes back short; answers the rows it took in all. */
async function inBatches(step: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = await step(PRUNE_BATCH);
    total += batch;
    if (batch < PRUNE_BATCH) return total;
  }
}
