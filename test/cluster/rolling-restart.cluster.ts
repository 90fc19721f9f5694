import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { start, type TestCluster } from '../helpers/cluster.js';
import { type LoadTarget, p99, seedLoadTarget, startLoad } from '../helpers/cluster-load.js';

// Three instances behind HAProxy on one PostgreSQL (DECISIONS.md "Scale out"): each restarted in
// turn under booking load, REST and MCP, without a failed request or a lost acknowledged write.
describe('a rolling restart of a cluster', () => {
  let cluster: TestCluster;
  let target: LoadTarget;
  before(async () => {
    cluster = await start({ instances: 3 });
    target = await seedLoadTarget(cluster.url);
  });
  after(() => cluster?.stop());

  test('fails no request and loses no acknowledged booking', async () => {
    const load = startLoad(target, { rest: 4, mcp: 2 });
    await sleep(1_500);
    const restartedAt = Date.now();
    for (const instance of cluster.instances) {
      const pid = instance.pid;
      assert.equal(await instance.restart(), 0, `${instance.name} drained and exited cleanly`);
      assert.notEqual(instance.pid, pid);
    }
    await sleep(500);
    const { samples, booked } = await load.stop();

    const failures = samples.filter((sample) => sample.failure).map((sample) => sample.failure);
    assert.deepEqual(failures, [], 'every answer was a booking');
    const during = samples.filter((sample) => sample.at >= restartedAt);
    assert.ok(during.length > 50, `requests kept coming during the restarts (${during.length})`);
    const before = samples.filter((sample) => sample.at < restartedAt);
    // A rough bound on a shared machine; bench/rolling-restart.ts measures it.
    assert.ok(p99(during) < 5_000, `p99 during the restarts: ${p99(during)} ms (before: ${p99(before)} ms)`);

    const client = new pg.Client({ connectionString: cluster.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: number }>('select id from reservations where id = any($1)', [
        booked,
      ]);
      assert.equal(new Set(booked).size, booked.length, 'each acknowledged booking is a booking of its own');
      assert.equal(rows.length, booked.length, 'every acknowledged booking is stored');
    } finally {
      await client.end();
    }
  });

  test('a draining instance answers 503 to its readiness probe and goes on serving', async () => {
    const [instance] = cluster.instances;
    const direct = `http://127.0.0.1:${instance!.port}`;
    process.kill(instance!.pid, 'SIGTERM');
    let ready = await fetch(`${direct}/api/ready`);
    for (let tries = 0; ready.status === 200 && tries < 20; tries += 1) {
      await sleep(25);
      ready = await fetch(`${direct}/api/ready`);
    }
    assert.equal(ready.status, 503);
    assert.equal((await ready.json()).error.code, 'NOT_READY');
    assert.equal((await fetch(`${direct}/api/health`)).status, 200);
    // Back in the cluster (restart waits for the exit the SIGTERM began).
    assert.equal(await instance!.restart(), 0);
    assert.equal((await fetch(`${cluster.url}/api/ready`)).status, 200);
  });
});
