// A node:test reporter summing each file's top-level test durations: one line per file, slowest
// first, then the total. `npm test -- --test-reporter=dot --test-reporter-destination=stdout
// --test-reporter=./scripts/test-times-reporter.mjs --test-reporter-destination=times.txt`
// (scripts/test-order.mjs lists the slowest files from it).
export default async function* timesReporter(source) {
  const perFile = new Map();
  const count = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      const file = event.data.file ?? '?';
      perFile.set(file, (perFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
      count.set(file, (count.get(file) ?? 0) + 1);
    }
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  let total = 0;
  for (const [file, ms] of rows) {
    total += ms;
    yield `${ms.toFixed(0).padStart(8)} ${String(count.get(file)).padStart(4)} ${file}\n`;
  }
  yield `${total.toFixed(0).padStart(8)} total over ${rows.length} files\n`;
}
