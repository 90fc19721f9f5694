import { coalescing } from '../../lib/coalescing.js';
import type { OutboxContext } from './context.js';
import type { OutboxService } from './service.js';

/** How often a consumer with nothing to do is run on new events, at most (it skips them unread). */
const IDLE_RUN_MS = 5_000;

/**
 * The consumers (webhook dispatch, mail, waitlist offers, the booking-calendar mirror) run
 * on their own jobs anyway; this makes them prompt. Every instance looks (one indexed max() per
 * look) and runs them when an event was written since, whoever wrote it: events are written by
 * triggers and by other instances, so no write path needs to remember to wake anyone.
 */
export function watchForNewEvents({ config, jobs, repo, log }: OutboxContext): OutboxService['onNewEvents'] {
  const consumers: Array<() => Promise<void>> = [];
  let seen: number | undefined;
  if (config.outboxPollMs > 0) {
    jobs.repeat('outbox.watch', config.outboxPollMs, async () => {
      const last = await repo.lastId();
      if (last === seen) return;
      seen = last;
      for (const consume of consumers) void consume();
    });
  }
  return function onNewEvents(name, consume, options = {}) {
    const run = coalescing(consume);
    let idleRunAt = Number.NEGATIVE_INFINITY;
    consumers.push(async () => {
      try {
        if (options.idle && (await options.idle())) {
          // performance.now, not Date.now: the tests' fake clocks move Date.
          if (performance.now() - idleRunAt < IDLE_RUN_MS) return;
          idleRunAt = performance.now();
        }
        await run();
      } catch (error) {
        log?.warn({ err: error, consumer: name }, 'outbox consumer failed');
      }
    });
  };
}
