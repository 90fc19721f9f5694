// Bundles test files for Node's test runner with esbuild: each test file an entry, the code
// they share (the app, the helpers) split into common chunks, the packages left external.
// A test process then loads a few files instead of ~550 modules through tsx's loader, which
// was about half of the suite's time. Paths stay those of the sources: `import.meta.url`,
// `.dirname` and `.filename` are rewritten per file to where the source lives, so code that
// finds files beside itself (the SMTP worker, the tool snapshots, the project root) works as
// under tsx, and the source maps point stack traces at the .ts lines.
import { readFile, rm } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const pkg = JSON.parse(await readFile('package.json', 'utf8'));
const PACKAGES = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });

/** Source paths of the module, in place of esbuild's (the bundle's) `import.meta`. */
const sourcePaths = {
  name: 'source-paths',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?tsx?$/, namespace: 'file' }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
        .replaceAll('import.meta.filename', JSON.stringify(path));
      return { contents, loader: path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

/** Entry points tests start as processes of their own (test/helpers/entry-points.ts). */
const PROCESS_ENTRY_POINTS = ['src/cli.ts', 'test/helpers/instance.fixture.ts'];

/**
 * Bundles `files` (paths of .ts test files) and the entry points tests start as processes into a
 * fresh folder under .test-build/; answers the built test files' paths (in the order given), the
 * folder (the runner hands it on as TEST_BUILD_DIR) and a function removing it.
 */
export async function buildTests(files) {
  const outdir = resolve('.test-build', `run-${process.pid}`);
  // From the project root however given (`./test/...`, an absolute path), as outbase places them.
  const sources = files.map((file) => relative('.', resolve(file)));
  await build({
    entryPoints: [...sources, ...PROCESS_ENTRY_POINTS],
    outdir,
    outbase: '.',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // A package is loaded from node_modules as in production; `pkg/*` covers subpath imports.
    external: PACKAGES.flatMap((name) => [name, `${name}/*`]),
    sourcemap: 'linked',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [sourcePaths],
    logLevel: 'warning',
  });
  return {
    built: sources.map((file) => resolve(outdir, file.replace(/\.ts$/, '.js'))),
    outdir,
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}
