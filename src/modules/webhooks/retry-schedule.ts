/** The retry schedule of a delivery, and the window after which a failing endpoint is disabled. */
export const DAY_MS = 86_400_000;
/** Automatic retries of a delivery go on this long; an endpoint failing this long is disabled. */
export const RETRY_WINDOW_MS = 3 * DAY_MS;
/** The first retry waits this long; each next one twice as long, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 6 * 60 * 60_000;

/** The wait before attempt number `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
}
