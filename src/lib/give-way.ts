import { type EventLoopUtilization, performance } from 'node:perf_hooks';

export interface GiveWayOptions {
  /** The share of the time the event loop may have been busy since the last look before work waits. */
  busyAbove?: number;
  /** How long a wait is before the loop is looked at again. */
  stepMs?: number;
  /** The longest a caller waits in all: deferred work still moves on a loop that stays busy. */
  maxWaitMs?: number;
  /** Another sign of load the work waits on too (requests queued for a database connection). */
  alsoBusy?: () => boolean;
}

/**
 * For background work that runs on the request thread (the mail drain's groups): `giveWay()`
 * answers at once while the event loop has room, and while it was busier than `busyAbove`
 * since the last look it waits in steps of `stepMs`, up to `maxWaitMs`. So a burst of requests
 * is answered at full speed and the work follows when it eases, at a trickle meanwhile.
 * The loop's utilisation, not the machine's load: the loop is what requests wait for (and,
 * through `alsoBusy`, what else they wait for).
 */
export function createGiveWay({
  busyAbove = 0.9,
  stepMs = 50,
  maxWaitMs = 250,
  alsoBusy = () => false,
}: GiveWayOptions = {}) {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const busy = () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization > busyAbove || alsoBusy();
  };
  return async function giveWay(): Promise<void> {
    for (let waited = 0; waited < maxWaitMs && busy(); waited += stepMs)
      await new Promise((resolve) => setTimeout(resolve, stepMs));
  };
}
