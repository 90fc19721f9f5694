import type { FastifyBaseLogger } from 'fastify';

/** The longest a failing `repeat` waits between runs. */
const REPEAT_BACKOFF_MAX_MS = 30_000;

/** The `repeat` work of one queue: timers started with the queue, stopped (and awaited) with it. */
export function localRepeats(log: Pick<FastifyBaseLogger, 'error' | 'warn'>) {
  const registered: Array<{ name: string; ms: number; handler: () => Promise<void>; failures: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let running = false;

  // A failing run (the database down, say) waits twice as long each time, up to 30 s, and is
  // logged once per streak: work every 100 ms must not flood the log or the database.
  const delayOf = (entry: (typeof registered)[number]) =>
    entry.failures === 0 ? entry.ms : Math.min(entry.ms * 2 ** entry.failures, REPEAT_BACKOFF_MAX_MS);

  function schedule(entry: (typeof registered)[number]) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = entry
        .handler()
        .then(
          () => {
            entry.failures = 0;
          },
          (error: unknown) => {
            if (entry.failures === 0) log.warn({ err: error, job: entry.name }, 'repeated work failed');
            entry.failures += 1;
          },
        )
        .finally(() => {
          inFlight.delete(run);
          if (running) schedule(entry);
        });
      inFlight.add(run);
    }, delayOf(entry));
    timer.unref();
    timers.add(timer);
  }

  return {
    add(name: string, ms: number, handler: () => Promise<void>) {
      const entry = { name, ms, handler, failures: 0 };
      registered.push(entry);
      if (running) schedule(entry);
    },
    start() {
      if (running) return;
      running = true;
      for (const entry of registered) schedule(entry);
    },
    async stop() {
      running = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(inFlight);
    },
  };
}
