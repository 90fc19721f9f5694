// Runs every test/cluster/*.cluster.ts file with Node's test runner (bundled first, as `npm test`
// does: scripts/test-build.mjs): real instances behind HAProxy (test/helpers/cluster.ts), on
// PostgreSQL (PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres, where each
// cluster gets a database of its own) and Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379).
// Kept apart from `npm test`: a cluster is several processes and a balancer, PostgreSQL only.
// One file at a time: each runs three instances.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests } from './test-build.mjs';

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.ts'));
const files =
  explicit.length > 0
    ? explicit
    : readdirSync(join('test', 'cluster'))
        .filter((name) => name.endsWith('.cluster.ts'))
        .sort()
        .map((name) => join('test', 'cluster', name));
const { built, outdir, remove } = await buildTests(files);
const result = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    '--test-concurrency=1',
    ...args.filter((a) => !a.endsWith('.ts')),
    ...built,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', TEST_BUILD_DIR: outdir } },
);
await remove();
process.exit(result.status ?? 1);
