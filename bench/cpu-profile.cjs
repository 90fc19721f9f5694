// Preloaded into a benchmarked server with NODE_OPTIONS=--require (Node 20 refuses --cpu-prof
// there): profiles the main thread from start to exit and writes `<pid>.cpuprofile` into
// BENCH_PROFILE_OUT (open it in Chrome DevTools or speedscope).
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const out = process.env.BENCH_PROFILE_OUT;
if (out) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  let written = false;
  // The in-process inspector answers synchronously, so this works in an exit handler.
  process.on('exit', () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
