import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalescing } from '../../src/lib/coalescing.js';

/** A work function whose runs are released by hand, counting how many started and overlap. */
function gated() {
  const releases: Array<() => void> = [];
  let started = 0;
  let active = 0;
  let overlapped = false;
  const work = async () => {
    started += 1;
    active += 1;
    if (active > 1) overlapped = true;
    const run = started;
    await new Promise<void>((resolve) => releases.push(resolve));
    active -= 1;
    return run;
  };
  return {
    work,
    release: () => releases.shift()?.(),
    get started() {
      return started;
    },
    get overlapped() {
      return overlapped;
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('calls during a run fold into one next run, which starts after the first ends', async () => {
  const gate = gated();
  const trigger = coalescing(gate.work);
  const first = trigger();
  const second = trigger();
  const third = trigger();
  await turn();
  assert.equal(gate.started, 1, 'the later calls wait for the running one');
  gate.release();
  assert.equal(await first, 1);
  await turn();
  assert.equal(gate.started, 2, 'one more run for both later calls');
  gate.release();
  assert.equal(await second, 2);
  assert.equal(await third, 2);
  assert.equal(gate.overlapped, false);
});

test('a caller that calls again as its run ends joins the queued run, never one beside it', async () => {
  const gate = gated();
  const trigger = coalescing(gate.work);
  const first = trigger();
  // Registered before the queued run's own continuation: it runs first when `first` ends.
  let again: Promise<number> | undefined;
  void first.then(() => {
    again = trigger();
  });
  const queued = trigger();
  gate.release();
  await first;
  await turn();
  assert.equal(gate.started, 2);
  gate.release();
  assert.equal(await queued, 2);
  assert.equal(await again, 2, 'the call made as the first run ended is answered by the queued run');
  assert.equal(gate.overlapped, false);
});

test('a failed run does not stop the next', async () => {
  let runs = 0;
  const trigger = coalescing(async () => {
    runs += 1;
    if (runs === 1) throw new Error('boom');
    return runs;
  });
  const failed = trigger();
  const next = trigger();
  await assert.rejects(failed, /boom/);
  assert.equal(await next, 2);
});
