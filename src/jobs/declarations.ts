import type { JobQueue, WorkOptions } from './queue.js';

/**
 * One background job as a module declares it (its module.ts `jobs`): the wiring registers
 * every module's jobs once, after every service is built and before the queue starts.
 */
export interface JobDeclaration<T extends object = object> {
  name: string;
  /** Runs one job; `data` is what `send` queued ({} for a periodic run). */
  handler(data: T): Promise<void>;
  options?: WorkOptions;
  /** Also queued every this many minutes (once per period across instances on pg-boss). */
  everyMinutes?: number;
}

/**
 * A periodic sweep: queued every `everyMinutes`, one waiting at a time, never retried (the
 * next period is its retry). `run`'s answer is dropped.
 */
export function sweep(name: string, everyMinutes: number, run: () => Promise<unknown>): JobDeclaration {
  return { name, handler: async () => void (await run()), options: SWEEP_OPTIONS, everyMinutes };
}

/** What a sweep's handler is registered with (also for jobs only queued on demand). */
export const SWEEP_OPTIONS: WorkOptions = { retryLimit: 0, deduplicate: true };

/** Registers `declarations` on `jobs`; a name declared twice fails the start. */
export function registerJobs(
  jobs: Pick<JobQueue, 'work' | 'every'>,
  declarations: readonly JobDeclaration[],
): void {
  const names = new Set<string>();
  for (const { name, handler, options, everyMinutes } of declarations) {
    if (names.has(name)) throw new Error(`Two jobs are named ${name}`);
    names.add(name);
    jobs.work(name, handler, options);
    if (everyMinutes !== undefined) jobs.every(name, everyMinutes);
  }
}
