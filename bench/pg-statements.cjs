// Preloaded into a benchmarked server with NODE_OPTIONS=--require (bench/harness.ts `profiledEnv`,
// BENCH_PG_STATEMENTS_DIR): writes every PostgreSQL round trip the server makes, in order, to
// `<pid>.log` in BENCH_PG_STATEMENTS_OUT as it happens: milliseconds since start, the connection
// (a number per pg client), and the statement (whitespace folded; `[name]` when it ran as a named
// prepared statement). HTTP requests are marked where they arrive and where their answer is sent,
// so a request's round trips, and what runs after its answer, read in the order they ran.
const { appendFileSync, mkdirSync } = require('node:fs');
const http = require('node:http');
const { join } = require('node:path');

const out = process.env.BENCH_PG_STATEMENTS_OUT;
let Client;
let Query;
try {
  const driverFile = (file) => require(require.resolve(`pg/lib/${file}`, { paths: [process.cwd()] }));
  Client = out && driverFile('client');
  Query = out && driverFile('query');
} catch {
  // No pg driver: nothing to log.
}
if (Client) {
  mkdirSync(out, { recursive: true });
  const file = join(out, `${process.pid}.log`);
  const started = process.hrtime.bigint();
  const line = (text) => {
    const ms = (Number(process.hrtime.bigint() - started) / 1e6).toFixed(1);
    appendFileSync(file, `${ms}\t${text}\n`);
  };
  const connections = new WeakMap();
  let next = 0;
  const query = Client.prototype.query;
  Client.prototype.query = function (config, ...rest) {
    // A hot statement runs as a Query (src/db/prepared-query.ts); other submittables (cursors) are no statements.
    if (typeof config?.submit !== 'function' || config instanceof Query) {
      if (!connections.has(this)) connections.set(this, ++next);
      const text = typeof config === 'string' ? config : config?.text;
      const name = typeof config === 'object' && config?.name ? `[${config.name}] ` : '';
      line(`c${connections.get(this)}\t${name}${String(text).replace(/\s+/g, ' ')}`);
    }
    return query.call(this, config, ...rest);
  };
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, request, response, ...rest) {
    if (event === 'request') {
      const what = `${request.method} ${request.url}`;
      line(`>>\t${what}`);
      response.once('finish', () => line(`<<\t${what} ${response.statusCode}`));
    }
    return emit.call(this, event, request, response, ...rest);
  };
}
