// Tracing benchmark (issue 55: tracing on at most 10% off a hot path; off, no cost): pool bookings
// per second with BENCH_CONNECTIONS (default 20) clients, distinct slots as in bench/booking.ts,
// the service started as `npm start` starts it with tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)
// and on (every span exported over OTLP/HTTP to a sink), on SQLite and on PostgreSQL.
// - The sink (bench/otlp-sink.mjs) and the mail catcher run in processes of their own under
//   SCHED_IDLE, as a collector and an SMTP server on other machines would: their work is not
//   the service's.
// - Off and on alternate, BENCH_ROUNDS rounds (default 3; 4 balance the order) of one each, in
//   the order off-on, on-off, ...: every measure a fresh start of the service on the same
//   database, the machine's drift within minutes and the database's growth fall on both alike. Each measure starts once the mail of the one before is sent (and, on PostgreSQL,
//   after a vacuum), as in bench/booking.ts.
// - Printed: every measure against the floor (Fastify hello-world), then per database the median
//   of on over the median of off, and the spans the sink received per request (shutdown flushes
//   them, so they are all counted; the seeding's few requests are among them).
// Run: npm run bench -- tracing
// (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS; BENCH_SKIP_SQLITE=1, BENCH_SKIP_PG=1;
// BENCH_PROFILE_DIR: each service's CPU profile, see `profiledEnv`.)
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookings, seed } from './booking-load.js';
import {
  BENCH_CONNECTIONS,
  BENCH_ROUNDS,
  freePort,
  type LoadRow,
  load,
  median,
  profiledEnv,
  ROOT,
  type Server,
  startFloor,
  startMailCatcher,
  startService,
  stop,
  table,
  untilMailDrained,
  vacuum,
  withPostgresDatabase,
} from './harness.js';

type Sink = Server & { counts(): Promise<{ spans: number; requests: number }> };

/** The OTLP sink, idle-scheduled (see the mail catcher in harness.ts). */
async function startSink(): Promise<Sink> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'chrt',
    ['--idle', '0', process.execPath, join(ROOT, 'bench/otlp-sink.mjs')],
    {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const counts = async () =>
    (await (await fetch(`${base}/count`)).json()) as { spans: number; requests: number };
  for (let tries = 0; ; tries++) {
    try {
      await counts();
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { child, base, counts };
}

interface Measured {
  rows: LoadRow[];
  off: number[];
  on: number[];
  spansPerBooking: number;
}

/** Off and on, BENCH_ROUNDS times, on the database at `databaseUrl`; then the floor. */
async function measure(
  database: string,
  databaseUrl: string,
  env: Record<string, string>,
  sink: Sink,
  floor: Server,
): Promise<Measured> {
  const logFile = join(tmpdir(), `bench-tracing-${process.pid}-${Date.now()}.log`);
  const postgres = database === 'PostgreSQL';
  const settled = async () => {
    await untilMailDrained(databaseUrl, database);
    if (postgres) await vacuum(databaseUrl);
  };
  let next = 0;
  let seeded: Awaited<ReturnType<typeof seed>> | undefined;
  const result: Measured = { rows: [], off: [], on: [], spansPerBooking: 0 };
  let spans = 0;
  let requests = 0;
  for (let round = 1; round <= BENCH_ROUNDS; round++) {
    // Off then on, then on then off: the database grows with every measure, and a fixed order
    // would give every later place (a larger database, a warmer page cache) to the same mode.
    for (const mode of round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const traced: Record<string, string> = mode === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.base } : {};
      const service = await startService(
        {
          ...env,
          ...traced,
          DATABASE_URL: databaseUrl,
          ...profiledEnv(`${database.toLowerCase()}-${mode}-${round}`),
        },
        logFile,
      );
      let row: LoadRow;
      const before = await sink.counts();
      try {
        seeded ??= await seed(service.base);
        row = await load({
          title: `${database}: pool booking, tracing ${mode} (round ${round})`,
          server: service,
          path: '/api/reservations',
          requests: bookings(seeded.auth, seeded.distinctType, () => next++),
          postgres,
        });
        // The mail of these bookings is sent by this service, before the next measure starts.
        await settled();
      } catch (error) {
        console.error(`service log: ${logFile}`);
        throw error;
      } finally {
        await stop(service);
      }
      result.rows.push(row);
      result[mode].push(row.rps);
      if (mode === 'on') {
        const after = await sink.counts();
        spans += after.spans - before.spans;
        requests += after.requests - before.requests;
      }
    }
  }
  rmSync(logFile, { force: true });
  result.spansPerBooking = requests > 0 ? spans / requests : 0;
  result.rows.push(
    await load({ title: `${database} run: floor (Fastify hello-world)`, server: floor, path: '/' }),
  );
  return result;
}

const catcher = await startMailCatcher();
const sink = await startSink();
const floor = await startFloor();
const env = { SMTP_URL: catcher.smtpUrl };
const results: Array<[string, Measured]> = [];
try {
  if (!process.env.BENCH_SKIP_SQLITE) {
    const file = join(tmpdir(), `bench-tracing-${process.pid}.db`);
    try {
      results.push(['SQLite', await measure('SQLite', `sqlite:${file}`, env, sink, floor)]);
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    }
  }
  if (!process.env.BENCH_SKIP_PG)
    await withPostgresDatabase('bench_tracing', async (url) => {
      results.push(['PostgreSQL', await measure('PostgreSQL', url, env, sink, floor)]);
    });
} finally {
  for (const server of [floor, sink, catcher]) await stop(server);
}
console.log(
  `connections ${BENCH_CONNECTIONS}, rounds ${BENCH_ROUNDS}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`,
);
for (const [database, { rows, off, on, spansPerBooking }] of results) {
  console.log(`${table(rows, rows[rows.length - 1]!.rps)}\n`);
  const kept = median(on) / median(off);
  console.log(
    `${database}: tracing on keeps ${(kept * 100).toFixed(1)}% of off's bookings a second (median ${median(on)} / ${median(off)}; aim at least 90%), ${spansPerBooking.toFixed(1)} spans a booking\n`,
  );
}
