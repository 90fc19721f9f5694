// Rolling-restart benchmark (DECISIONS.md "Scale out": a rolling restart under load fails no
// request; aim: p99 during the restart at most 3x the p99 before): `npm run cluster`'s set-up
// (tools/cluster/cluster.ts: BENCH_INSTANCES built instances, default 3, behind HAProxy) on a fresh
// PostgreSQL database and REDIS_URL (default redis://127.0.0.1:6379), under the load of the
// cluster test (test/helpers/cluster-load.ts: BENCH_REST_LOOPS REST and BENCH_MCP_LOOPS MCP loops
// booking new times back to back, default 4 and 2). After BENCH_WARMUP_SECONDS (default 5) it
// measures BENCH_SECONDS (default 10) before, then restarts every instance in turn (SIGTERM,
// drain, exit, start, back in rotation), and prints the requests, failures and p99 of each
// window and the ratio of the two p99s.
// Needs the build (npm run build). Run: npm run bench -- rolling-restart
import { setTimeout as sleep } from 'node:timers/promises';
import { p99, type Sample, seedLoadTarget, startLoad } from '../test/helpers/cluster-load.js';
import { startCluster } from '../tools/cluster/cluster.js';
import { withPostgresDatabase } from './harness.js';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Load before the measuring starts: the instances' first requests (compilation, caches, pools) are slow. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const loops = {
  rest: Number(process.env.BENCH_REST_LOOPS ?? 4),
  mcp: Number(process.env.BENCH_MCP_LOOPS ?? 2),
};

function row(name: string, samples: Sample[]): string {
  const failed = samples.filter((sample) => sample.failure).length;
  return `${name.padEnd(18)} ${String(samples.length).padStart(8)} ${String(failed).padStart(8)} ${String(p99(samples)).padStart(8)}`;
}

await withPostgresDatabase('rs_bench_rolling', async (databaseUrl) => {
  const cluster = await startCluster({
    instances: INSTANCES,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000',
      PUBLIC_RATE_LIMIT_MAX: '1000000',
      // Counters in Redis outlive a run: every run registers from this one address.
      REGISTER_RATE_LIMIT_MAX: '1000000',
      PAYMENT_API_BASE: 'http://127.0.0.1:9',
      PAYMENT_SECRET_KEY: 'sk_test_bench',
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    },
  });
  try {
    const target = await seedLoadTarget(cluster.url);
    const load = startLoad(target, loops);
    await sleep(WARMUP_SECONDS * 1000);
    const measuredFrom = Date.now();
    await sleep(SECONDS * 1000);
    const restartedAt = Date.now();
    for (const instance of cluster.instances) await instance.restart();
    const { samples } = await load.stop();
    const before = samples.filter((sample) => sample.at >= measuredFrom && sample.at < restartedAt);
    const during = samples.filter((sample) => sample.at >= restartedAt);
    console.log(`${INSTANCES} instances, ${loops.rest} REST + ${loops.mcp} MCP booking loops`);
    console.log(
      `${'window'.padEnd(18)} ${'requests'.padStart(8)} ${'failed'.padStart(8)} ${'p99 ms'.padStart(8)}`,
    );
    console.log(row(`before (${SECONDS} s)`, before));
    console.log(row(`during (${Math.round((Date.now() - restartedAt) / 1000)} s)`, during));
    const ratio = p99(before) > 0 ? p99(during) / p99(before) : Number.NaN;
    console.log(`p99 during / before: ${ratio.toFixed(2)} (aim: at most 3)`);
  } finally {
    await cluster.stop();
  }
});
