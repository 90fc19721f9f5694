// Runs every test/**/*.test.ts file with Node's test runner (TypeScript through tsx).
// Extra arguments are passed to the runner, e.g. `npm test -- --test-name-pattern=login`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.ts'));
const files = explicit.length > 0 ? explicit : testFiles('test').sort();
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    ...args.filter((a) => !a.endsWith('.ts')),
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
