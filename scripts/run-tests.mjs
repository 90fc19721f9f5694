// Runs every test/**/*.test.ts file with Node's test runner, bundled first by esbuild
// (scripts/test-build.mjs). Extra arguments are passed to the runner, e.g.
// `npm test -- --test-name-pattern=login`; .ts paths run only those files.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests } from './test-build.mjs';
import { slowestFirst } from './test-order.mjs';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.ts'));
const files = explicit.length > 0 ? explicit : slowestFirst(testFiles('test').sort());
// Three files at a time on two cores: a file's tests wait (on timers, sockets, child processes,
// PostgreSQL) for about half their time, which two at a time left idle (docs/decisions.md).
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const { built, outdir, remove } = await buildTests(files);
const result = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    `--test-concurrency=${concurrency}`,
    ...args.filter((a) => !a.endsWith('.ts')),
    ...built,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', TEST_BUILD_DIR: outdir } },
);
await remove();
process.exit(result.status ?? 1);
