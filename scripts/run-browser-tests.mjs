// Runs every test/browser/*.browser.ts file with Node's test runner (bundled first, as
// `npm test` does: scripts/test-build.mjs), driving the system Chromium through playwright-core. Kept apart from `npm test` so the main
// suite needs no browser. Extra arguments are passed to the runner, e.g.
// `npm run test:browser -- --test-name-pattern=keyboard`. CHROMIUM_PATH overrides /usr/bin/chromium.
// The pages are built first when dist/frontend has none (once, before any file starts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests } from './test-build.mjs';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.browser.ts') ? [path] : [];
  });
}

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.error(`No browser at ${chromium}: install Debian's chromium package or set CHROMIUM_PATH.`);
  process.exit(1);
}

if (!existsSync(join('dist', 'frontend', 'index.html'))) {
  const built = spawnSync('npm', ['run', 'build:web'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.ts'));
const files = explicit.length > 0 ? explicit : testFiles(join('test', 'browser')).sort();
const { built, outdir, remove } = await buildTests(files);
const result = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    // Two files at a time, each with its own app and Chromium: the pages wait on the network
    // and timers as much as on the cores.
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
    ...args.filter((a) => !a.endsWith('.ts')),
    ...built,
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test', CHROMIUM_PATH: chromium, TEST_BUILD_DIR: outdir },
  },
);
await remove();
process.exit(result.status ?? 1);
