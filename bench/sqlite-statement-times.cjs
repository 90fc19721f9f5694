// Preloaded into a benchmarked server with NODE_OPTIONS=--require (bench/harness.ts `profiledEnv`,
// BENCH_SQL_TIMES_DIR): times every SQLite statement the server runs, by its SQL, and writes
// `<pid>.md` into BENCH_SQL_TIMES_OUT when it exits: calls, total and mean time of each, largest
// first. A statement outside a transaction includes its commit. The V8 profile cannot say this: a
// statement Kysely runs for a caller runs in a later microtask, outside the caller's frames.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const out = process.env.BENCH_SQL_TIMES_OUT;
let driver;
try {
  driver = out && require(require.resolve('better-sqlite3', { paths: [process.cwd()] }));
} catch {
  // Not a SQLite server: nothing to time.
}
if (driver) {
  /** SQL (whitespace folded) → calls and nanoseconds. */
  const times = new Map();
  const prepare = driver.prototype.prepare;
  driver.prototype.prepare = function (source, ...rest) {
    const statement = prepare.call(this, source, ...rest);
    const key = String(source).replace(/\s+/g, ' ');
    // Not `iterate`: its rows are read after it answers, outside any wrapper's timing.
    for (const method of ['all', 'get', 'run']) {
      const original = statement[method];
      statement[method] = function (...args) {
        const start = process.hrtime.bigint();
        try {
          return original.apply(this, args);
        } finally {
          const entry = times.get(key) ?? { calls: 0, ns: 0 };
          entry.calls += 1;
          entry.ns += Number(process.hrtime.bigint() - start);
          times.set(key, entry);
        }
      };
    }
    return statement;
  };
  process.on('exit', () => {
    const rows = [...times].sort((a, b) => b[1].ns - a[1].ns);
    const lines = [
      '| total ms | calls | µs a call | statement |',
      '|---|---|---|---|',
      ...rows.map(
        ([sql, { calls, ns }]) =>
          `| ${(ns / 1e6).toFixed(1)} | ${calls} | ${(ns / 1e3 / calls).toFixed(1)} | \`${sql.slice(0, 200).replaceAll('|', '\\|')}\` |`,
      ),
    ];
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${process.pid}.md`), `${lines.join('\n')}\n`);
  });
}
