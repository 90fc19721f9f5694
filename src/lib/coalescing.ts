/**
 * Wraps `work` so that it runs one at a time and calls while it runs fold into a single
 * next run: the answer of every call is a run that started after the call, so it sees
 * whatever the caller wrote before calling. A burst of a thousand calls costs two runs.
 */
export function coalescing<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  let queued: Promise<T> | null = null;

  const start = (): Promise<T> => {
    const run = work();
    running = run;
    // With a run queued, `running` stays set until it starts, so no call slips in between.
    const settle = () => {
      if (running === run && !queued) running = null;
    };
    run.then(settle, settle);
    return run;
  };

  return () => {
    if (!running) return start();
    if (!queued) {
      const after = () => {
        queued = null;
        return start();
      };
      queued = running.then(after, after);
    }
    return queued;
  };
}
