import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGiveWay } from '../../src/lib/give-way.js';

/** Keeps the event loop busy for `ms`, as a burst of requests does. */
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** How long a call to `giveWay` took, in ms. */
async function timed(giveWay: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await giveWay();
  return performance.now() - start;
}

describe('giveWay', () => {
  test('answers at once while the loop has room', async () => {
    const giveWay = createGiveWay({ stepMs: 40, maxWaitMs: 400 });
    await sleep(100);
    assert.ok((await timed(giveWay)) < 20, 'no wait after an idle loop');
  });

  test('waits while the loop was busy, and goes on once it is not', async () => {
    const giveWay = createGiveWay({ stepMs: 40, maxWaitMs: 400 });
    spin(200);
    const waited = await timed(giveWay);
    // One step at least (the busy look), and fewer than the most: the loop was idle in the step.
    assert.ok(waited >= 35, `waited ${waited.toFixed(1)} ms after a busy loop`);
    assert.ok(waited < 300, `went on once the loop had room, after ${waited.toFixed(1)} ms`);
  });

  test('waits while another sign of load says so, on an idle loop too', async () => {
    let looks = 0;
    // Busy for the first two looks (a database pool with queries queued), then not.
    const giveWay = createGiveWay({ stepMs: 30, maxWaitMs: 400, alsoBusy: () => ++looks <= 2 });
    await sleep(50);
    const waited = await timed(giveWay);
    assert.equal(looks, 3);
    assert.ok(waited >= 55 && waited < 300, `two steps, not ${waited.toFixed(1)} ms`);
  });

  // A gate that ignored its most would wait for ever here: the timeout fails it instead.
  test('waits no longer than its most on a loop that stays busy', { timeout: 5_000 }, async () => {
    const giveWay = createGiveWay({ stepMs: 20, maxWaitMs: 100 });
    // Busy 49 ms of every 50 or so while it waits: every look finds the loop over 90% busy.
    const busy = setInterval(() => spin(49), 1);
    try {
      spin(100);
      const waited = await timed(giveWay);
      assert.ok(waited >= 90, `waited through the busy loop: ${waited.toFixed(1)} ms`);
      // Five steps, each late by at most a spin.
      assert.ok(waited < 600, `but not past its most: ${waited.toFixed(1)} ms`);
    } finally {
      clearInterval(busy);
    }
  });
});
