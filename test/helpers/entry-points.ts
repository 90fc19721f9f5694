// How a test starts one of the project's entry points as its own process: from the test run's
// bundle when `npm test` built one (scripts/test-build.mjs sets TEST_BUILD_DIR; a start there
// takes under a second where tsx takes several), else from the source through tsx.
import { join } from 'node:path';

/** Node's arguments that run `source`: one of the entry points scripts/test-build.mjs bundles. */
export function nodeArgsFor(source: 'src/cli.ts' | 'test/helpers/instance.fixture.ts'): string[] {
  const built = process.env.TEST_BUILD_DIR;
  return built
    ? ['--enable-source-maps', join(built, source.replace(/\.ts$/, '.js'))]
    : ['--import', 'tsx', source];
}
