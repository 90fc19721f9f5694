// Bundles test files for Node's test runner with esbuild: each test file an entry, the code
// they share (the app, the helpers) split into common chunks, and the packages bundled too
// (all but the few that find files beside themselves, or are native). A test process then
// loads a few files instead of ~550 modules through tsx's loader, which was about half of the
// suite's time, and instead of ~800 package modules through Node's resolver, which was about
// a third of each test process's start. Paths stay those of the sources: `import.meta.url`,
// `.dirname` and `.filename` are rewritten per file to where the source lives, so code that
// finds files beside itself (the SMTP worker, the tool snapshots, the project root) works as
// under tsx, and the source maps point stack traces at the .ts lines.
import { spawnSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const pkg = JSON.parse(await readFile('package.json', 'utf8'));

/**
 * Packages loaded from node_modules as in production rather than bundled: native code, files
 * found beside the package's own (`__dirname`: swagger-ui's pages, swagger's package.json,
 * pino's and thread-stream's workers, ioredis), and the tools tests drive but never import.
 */
const EXTERNAL = [
  'better-sqlite3',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'pino',
  'thread-stream',
  'ioredis',
  'esbuild',
  'tsx',
  'typescript',
  'vite',
  'playwright-core',
  '@axe-core/playwright',
];

/** Bundled CommonJS packages `require` Node's modules and the external packages; ESM has no `require`. */
const REQUIRE_BANNER =
  "import { createRequire as __testBuildRequire } from 'node:module'; const require = __testBuildRequire(import.meta.url);";

/**
 * An entry importing every bundled package the tests load, so that splitting puts package code
 * in chunks of its own (reached from this entry too), apart from the project's. Those chunks
 * lose their source map link: Node reads a chunk's map, and measures every line of the chunk,
 * when it loads one with a link (about 0.3 s a process for the packages); stack traces through
 * project code still point at the .ts lines.
 */
const VENDOR_ENTRY = 'vendor-packages';
const vendorEntry = (packages) => ({
  name: 'vendor-entry',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${VENDOR_ENTRY}$`) }, () => ({
      path: VENDOR_ENTRY,
      namespace: 'vendor',
    }));
    build.onLoad({ filter: /.*/, namespace: 'vendor' }, () => ({
      contents: packages.map((name, i) => `export * as p${i} from ${JSON.stringify(name)};`).join('\n'),
      resolveDir: process.cwd(),
      loader: 'js',
    }));
  },
});

/**
 * Worker threads the service starts from a file beside the starting module, by source: the
 * worker is bundled as an entry of its own, and the starting module's `import.meta.url` names
 * its place in the bundle, so it starts the built worker as the service starts the compiled one
 * (under tsx a worker registers tsx and compiles its sources, seconds a thread).
 */
const WORKERS = { 'src/modules/mail/smtp-sender.ts': 'src/modules/mail/smtp-worker.ts' };

/**
 * Source paths of the module, in place of esbuild's (the bundle's) `import.meta`; for a module
 * starting one of WORKERS, its own place in the bundle under `outdir`.
 */
const sourcePaths = (outdir) => ({
  name: 'source-paths',
  setup(build) {
    const starters = new Map(
      Object.keys(WORKERS).map((file) => [resolve(file), resolve(outdir, file.replace(/\.ts$/, '.js'))]),
    );
    build.onLoad({ filter: /\.[cm]?tsx?$/, namespace: 'file' }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const url = starters.get(path) ?? path;
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(url).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
        .replaceAll('import.meta.filename', JSON.stringify(path));
      return { contents, loader: path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
});

/** The packages VENDOR_ENTRY imports: the service's, and those the tests use beside it. */
const VENDORED = [
  ...Object.keys(pkg.dependencies).filter((name) => !EXTERNAL.includes(name)),
  '@modelcontextprotocol/client',
  'ical.js',
  'oauth4webapi',
];

/** Drops the source map link of every chunk made only of package code (see VENDOR_ENTRY). */
async function unlinkPackageMaps(metafile) {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.js') || !file.includes('/chunks/')) continue;
    const inputs = Object.keys(output.inputs);
    if (inputs.length === 0 || !inputs.every((input) => input.includes('node_modules/'))) continue;
    const code = await readFile(file, 'utf8');
    await writeFile(file, code.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n'));
    await rm(`${file}.map`, { force: true });
  }
}

/** Entry points tests start as processes of their own (test/helpers/entry-points.ts). */
const PROCESS_ENTRY_POINTS = ['src/cli.ts', 'test/helpers/instance.fixture.ts'];

/** Writes the migrated SQLite image test apps copy (test/helpers/sqlite-image.ts), once a run. */
const SQLITE_IMAGE_ENTRY = 'test/helpers/sqlite-image.ts';

/** Where the `index`th test file is built, without its extension: `0003/test/x.test`. */
const builtName = (file, index) => join(String(index).padStart(4, '0'), file.replace(/\.ts$/, ''));

/**
 * Bundles `files` (paths of .ts test files) and the entry points tests start as processes into a
 * fresh folder under .test-build/; answers the built test files' paths (in the order given), the
 * folder (the runner hands it on as TEST_BUILD_DIR) and a function removing it. Node's runner
 * starts the files it is given in the order of their paths, so each built test file lies under
 * a folder numbering its place (`0000/test/...`): the files start in the order given.
 */
export async function buildTests(files) {
  const outdir = resolve('.test-build', `run-${process.pid}`);
  // From the project root however given (`./test/...`, an absolute path), as outbase places them.
  const sources = files.map((file) => relative('.', resolve(file)));
  const result = await build({
    entryPoints: [
      ...sources.map((file, index) => ({ in: file, out: builtName(file, index) })),
      ...PROCESS_ENTRY_POINTS,
      ...Object.values(WORKERS),
      SQLITE_IMAGE_ENTRY,
      VENDOR_ENTRY,
    ],
    outdir,
    outbase: '.',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // `pkg/*` covers subpath imports.
    external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
    banner: { js: REQUIRE_BANNER },
    sourcemap: 'linked',
    sourcesContent: false,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [sourcePaths(outdir), vendorEntry(VENDORED)],
    metafile: true,
    logLevel: 'warning',
  });
  await unlinkPackageMaps(result.metafile);
  // On SQLite every test process copies the database migrated here instead of migrating its own.
  if (!process.env.TEST_DATABASE_URL) {
    const script = resolve(outdir, SQLITE_IMAGE_ENTRY.replace(/\.ts$/, '.js'));
    const made = spawnSync(
      process.execPath,
      ['--enable-source-maps', script, join(outdir, 'migrated.sqlite')],
      {
        stdio: 'inherit',
        env: { ...process.env, NODE_ENV: 'test' },
      },
    );
    if (made.status !== 0) throw new Error("Migrating the tests' SQLite image failed");
  }
  return {
    built: sources.map((file, index) => resolve(outdir, `${builtName(file, index)}.js`)),
    outdir,
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}
