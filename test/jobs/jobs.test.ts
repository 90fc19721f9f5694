import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.js';
import { createTestDatabase } from '../helpers/app.js';

const quiet = { error: () => {}, warn: () => {} };
const waitFor = async (check: () => boolean, ms = 15_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('job queue, in-process', () => {
  test('runs a job off the request path, retries a failing one, and settles', async () => {
    const { db, drop } = await createTestDatabase();
    const queue = createJobQueue(db, 'in-process', quiet);
    const seen: number[] = [];
    let failures = 0;
    queue.work<{ n: number }>(
      'count',
      async ({ n }) => {
        if (n === 2 && failures < 2) {
          failures += 1;
          throw new Error('flaky');
        }
        seen.push(n);
      },
      { retryLimit: 3, retryDelaySeconds: 0.01 },
    );
    await queue.start();
    await queue.send('count', { n: 1 });
    assert.deepEqual(seen, [], 'send returns before the job runs');
    await queue.send('count', { n: 2 });
    await queue.idle();
    assert.deepEqual(seen.sort(), [1, 2]);
    assert.equal(failures, 2);
    await queue.stop();
    await drop();
  });

  test('a job sent right before stop does not keep stop waiting', async () => {
    const { db, drop } = await createTestDatabase();
    const queue = createJobQueue(db, 'in-process', quiet);
    let ran = 0;
    queue.work('late', async () => {
      ran += 1;
    });
    await queue.start();
    await queue.send('late', {});
    // The job waits for the next turn; stop comes first and must still finish.
    const stopped = await Promise.race([
      queue.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('hung'), 2_000)),
    ]);
    assert.equal(stopped, 'stopped');
    assert.equal(ran, 0, 'a stopped queue runs nothing more');
    await drop();
  });

  test('repeated work runs after each run ends, backs off while failing, is logged once per streak, stops with the queue', async () => {
    const { db, drop } = await createTestDatabase();
    const warnings: string[] = [];
    const queue = createJobQueue(db, 'in-process', {
      error: () => {},
      warn: (...args: unknown[]) => void warnings.push(String(args[1])),
    });
    const ran: number[] = [];
    let outage = true;
    queue.repeat('look', 10, async () => {
      ran.push(Date.now());
      if (outage && ran.length <= 4) throw new Error('database down');
    });
    await queue.start();
    await waitFor(() => ran.length >= 6, 5_000);
    outage = false;
    const gaps = ran.slice(1).map((at, i) => at - ran[i]!);
    // 10 ms, then 20, 40, 80, 160 while failing: each wait at least twice the one before.
    assert.ok(gaps[3]! >= 70 && gaps[3]! > gaps[0]!, `backed off: ${gaps.join(', ')} ms`);
    assert.deepEqual(warnings, ['repeated work failed'], 'one line for the whole streak');
    await queue.stop();
    const stopped = ran.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(ran.length, stopped, 'nothing runs after stop');
    await drop();
  });

  test('a waiting job absorbs another with the same singleton key', async () => {
    const { db, drop } = await createTestDatabase();
    const queue = createJobQueue(db, 'in-process', quiet);
    let runs = 0;
    queue.work(
      'sync',
      async () => {
        runs += 1;
      },
      { deduplicate: true },
    );
    await queue.send('sync', {}, { singletonKey: 'calendar-1' });
    await queue.send('sync', {}, { singletonKey: 'calendar-1' });
    await queue.send('sync', {}, { singletonKey: 'calendar-2' });
    await queue.idle();
    assert.equal(runs, 2);
    await queue.stop();
    await drop();
  });

  test('sending a job nobody handles is a programming error', async () => {
    const { db, drop } = await createTestDatabase();
    const queue = createJobQueue(db, 'in-process', quiet);
    await assert.rejects(queue.send('nobody', {}), /No handler for job nobody/);
    await drop();
  });
});

// pg-boss needs PostgreSQL: these run in the PostgreSQL pass of the suite (npm run test:pg).
if (process.env.TEST_DATABASE_URL)
  describe('job queue on PostgreSQL (pg-boss)', () => {
    const queues: JobQueue[] = [];
    const drops: Array<() => Promise<void>> = [];
    after(async () => {
      for (const queue of queues) await queue.stop();
      for (const drop of drops) await drop();
    });

    test('a job sent runs at once, and jobs queued together run back to back, though an idle queue looks every 10 s', async () => {
      const { db, drop } = await createTestDatabase();
      drops.push(drop);
      const queue = createJobQueue(db, 'auto', quiet);
      const ran: number[] = [];
      queue.work<{ n: number }>('prompt', async ({ n }) => {
        ran.push(n);
      });
      await queue.start();
      try {
        // Past the worker's first look: it now waits out its idle poll.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        for (let n = 0; n < 5; n += 1) await queue.send('prompt', { n });
        // One job a look at one look a second took 5 s; at one look every 10 s, 10 s before the first.
        await waitFor(() => ran.length === 5, 3_000);
        assert.deepEqual(ran.sort(), [0, 1, 2, 3, 4]);
      } finally {
        await queue.stop();
      }
    });

    test('two instances on one database run each job once', async () => {
      const { db, drop } = await createTestDatabase();
      drops.push(drop);
      const runsBy = { a: 0, b: 0 };
      const seen = new Set<number>();
      let duplicates = 0;
      for (const name of ['a', 'b'] as const) {
        const queue = createJobQueue(db, 'auto', quiet);
        assert.equal(queue.kind, 'pg-boss');
        queue.work<{ n: number }>('work', async ({ n }) => {
          runsBy[name] += 1;
          if (seen.has(n)) duplicates += 1;
          seen.add(n);
        });
        await queue.start();
        queues.push(queue);
      }
      for (let n = 0; n < 20; n += 1) await queues[n % 2]!.send('work', { n });
      await waitFor(() => seen.size === 20);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(duplicates, 0);
      assert.equal(runsBy.a + runsBy.b, 20);
    });
  });
