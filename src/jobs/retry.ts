import type { WorkOptions } from './queue.js';

const DEFAULT_RETRY = { retryLimit: 5, retryDelaySeconds: 10 };

/** A job's retry policy: its own options over the default (5 retries, the first after 10 s). */
export function retryOf(
  options: WorkOptions,
): Required<Pick<WorkOptions, 'retryLimit' | 'retryDelaySeconds'>> {
  return { ...DEFAULT_RETRY, ...options };
}
