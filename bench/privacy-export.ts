// Privacy export benchmark: GET /api/compliance/me/privacy/export of a person with
// 100,000 events and 10,000 tasks (plus checklist items), on SQLite and PostgreSQL.
// The service runs in its own process and reports its own memory: the peak above its
// settled baseline (RSS and V8 heap) while it streams the export, and its own time
// for the request. The client reads the body and throws it away, so its memory does
// not count. Two more measurements: the same export read by a slow client (about
// 4 MB/s: the service must not read ahead of it), and the latency of other requests
// (GET /api/auth/me) while an export runs.
// PostgreSQL is ANALYZEd after seeding, as autovacuum does soon after a bulk insert
// (BENCH_PG_NO_ANALYZE=1 measures without statistics). BENCH_SKIP_SQLITE=1 and
// BENCH_NO_OTHERS=1 (no concurrent requests) narrow a run down.
// Run: npm run bench -- privacy-export  (BENCH_EVENTS, BENCH_TASKS; BENCH_SKIP_PG=1;
// PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { type ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
// Constants first: the top-level await below runs before anything declared after it is initialised.
const BENCH_ENV = {
  RATE_LIMIT_MAX: '100000000',
  LOG_LEVEL: 'silent',
  NODE_ENV: 'test',
  JOB_QUEUE: 'in-process',
};
/** The slow client's reading rate: about 4 MB/s. */
const SLOW_BYTES_PER_MS = 4096;
const role = process.argv.find((arg) => arg.startsWith('--serve='))?.slice('--serve='.length);

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}
type ToServer = { type: 'start' } | { type: 'stop' };
type FromServer =
  | { type: 'ready'; url: string }
  | { type: 'peaks'; baseline: Memory; peak: Memory; retained: Memory; serverMs: number[] };

if (role) await serve(role);
else await orchestrate();

/** The service: the app on a port, sampling its own memory between `start` and `stop`. */
async function serve(databaseUrl: string) {
  const { buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const app = await buildApp(loadConfig({ ...BENCH_ENV, DATABASE_URL: databaseUrl }), { logger: false });
  const serverMs: number[] = [];
  app.addHook('onResponse', async (request, reply) => {
    if (request.url.endsWith('/privacy/export')) serverMs.push(reply.elapsedTime);
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  let sampler: NodeJS.Timeout | undefined;
  let baseline: Memory = { rss: 0, heapUsed: 0, external: 0 };
  let peak: Memory = baseline;
  const sample = (): Memory => {
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, external: m.external + m.arrayBuffers };
  };
  process.on('message', (message: ToServer) => {
    if (message.type === 'start') {
      globalThis.gc?.();
      baseline = sample();
      peak = { ...baseline };
      serverMs.length = 0;
      sampler = setInterval(() => {
        const now = sample();
        peak = {
          rss: Math.max(peak.rss, now.rss),
          heapUsed: Math.max(peak.heapUsed, now.heapUsed),
          external: Math.max(peak.external, now.external),
        };
      }, 5);
    } else {
      clearInterval(sampler);
      // What the export left behind: the heap after a full collection, against the baseline.
      globalThis.gc?.();
      const retained = sample();
      process.send!({
        type: 'peaks',
        baseline,
        peak,
        retained,
        serverMs: [...serverMs],
      } satisfies FromServer);
    }
  });
  process.send!({ type: 'ready', url } satisfies FromServer);
}

function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(new URL(import.meta.url).pathname, [`--serve=${databaseUrl}`], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.once('message', (message: FromServer) => {
      if (message.type === 'ready') resolve({ child, url: message.url });
    });
  });
}

function ask(
  child: ChildProcess,
  message: ToServer,
): Promise<Extract<FromServer, { type: 'peaks' }> | undefined> {
  if (message.type === 'start') {
    child.send(message);
    // The sampler starts after the baseline is taken; give the message a moment to land.
    return new Promise((resolve) => setTimeout(() => resolve(undefined), 200));
  }
  return new Promise((resolve) => {
    child.once('message', (m: FromServer) => resolve(m.type === 'peaks' ? m : undefined));
    child.send(message);
  });
}

/** GETs the export, reading (and dropping) the body; optionally slowly. */
function download(
  url: string,
  token: string,
  slow = false,
): Promise<{ status: number; bytes: number; firstByteMs: number; totalMs: number; tail: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = 0;
    let bytes = 0;
    let tail = '';
    const request = get(
      `${url}/api/compliance/me/privacy/export`,
      { headers: { authorization: `Bearer ${token}` } },
      (response) => {
        const onData = (chunk: Buffer) => {
          if (!firstByteMs) firstByteMs = performance.now() - started;
          bytes += chunk.length;
          tail = (tail + chunk.subarray(-16).toString('latin1')).slice(-16);
          if (slow) {
            response.pause();
            setTimeout(() => response.resume(), chunk.length / SLOW_BYTES_PER_MS);
          }
        };
        response.on('data', onData);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            bytes,
            firstByteMs,
            totalMs: performance.now() - started,
            tail,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

async function meLatencies(url: string, token: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!until()) {
    const started = performance.now();
    const response = await fetch(`${url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return latencies;
}

/** Registers the person and writes their rows in bulk (the benchmark is the export, not the writes). */
async function seed(databaseUrl: string): Promise<{ token: string; tinyToken: string }> {
  const { buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const app = await buildApp(loadConfig({ ...BENCH_ENV, DATABASE_URL: databaseUrl }), { logger: false });
  const registered = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: 'export-bench@example.test', password: 'benchmark password', name: 'Export Bench' },
  });
  const { accessToken, user } = registered.json() as { accessToken: string; user: { id: number } };
  // A second account with next to nothing: its export warms the service up (code compiled,
  // route and schemas initialised) without growing the heap, so the measured run is the
  // extra memory of one large export, not the service's one-time start-up costs.
  const tiny = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: 'tiny-bench@example.test', password: 'benchmark password', name: 'Tiny Bench' },
  });
  const tinyToken = (tiny.json() as { accessToken: string }).accessToken;
  const db = app.db.kysely;
  const calendar = await db
    .selectFrom('calendars')
    .select('id')
    .where('ownerId', '=', user.id)
    .executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const day = 86_400_000;
  const base = Date.parse('2024-01-01T09:00:00Z');
  const BATCH = 1000;
  for (let from = 0; from < EVENTS; from += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, EVENTS - from) }, (_, i) => {
      const n = from + i;
      const start = new Date(base + (n % 3650) * day + (n % 8) * 3_600_000);
      return {
        calendarId: calendar.id,
        title: `Event ${n}: meeting with the planning group`,
        description: n % 3 === 0 ? `Agenda item ${n}; bring the quarterly numbers` : null,
        location: n % 2 === 0 ? 'Room 4, second floor' : null,
        startTime: start.toISOString(),
        endTime: new Date(start.getTime() + 3_600_000).toISOString(),
        allDay: false,
        timezone: 'Europe/Berlin',
        recurrence: null,
        reminders: '[{"minutes":15,"method":"popup"}]',
        occursUntil: new Date(start.getTime() + 3_600_000).toISOString(),
        createdAt: now,
        updatedAt: now,
      };
    });
    await db.insertInto('events').values(rows).execute();
  }
  for (let from = 0; from < TASKS; from += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, TASKS - from) }, (_, i) => ({
      ownerId: user.id,
      title: `Task ${from + i}: follow up on the invoice`,
      notes: (from + i) % 4 === 0 ? 'Call the accountant first' : null,
      status: 'todo' as const,
      priority: 'normal' as const,
      dueAt: new Date(base + ((from + i) % 365) * day).toISOString(),
      completedAt: null,
      routineId: null,
      occurrenceDate: null,
      createdAt: now,
      updatedAt: now,
    }));
    const tasks = await db.insertInto('tasks').values(rows).returning('id').execute();
    await db
      .insertInto('taskChecklistItems')
      .values(
        tasks.map((task) => ({
          taskId: task.id,
          text: 'Check the amount',
          done: false,
          position: 0,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .execute();
  }
  await app.close();
  return { token: accessToken, tinyToken };
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

async function measure(label: string, databaseUrl: string) {
  const seeding = performance.now();
  const { token, tinyToken } = await seed(databaseUrl);
  if (databaseUrl.startsWith('postgres') && !process.env.BENCH_PG_NO_ANALYZE) {
    // As autovacuum would shortly after a bulk insert: without statistics the planner
    // guesses a handful of rows and sorts every batch instead of reading the index range.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('analyze');
    await client.end();
  }
  console.error(
    `${label}: seeded ${EVENTS} events and ${TASKS} tasks in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
  );
  const { child, url } = await startServer(databaseUrl);
  const rows: string[] = [];
  try {
    await download(url, tinyToken);
    // first: the first large export after start (and one tiny one); again: the next one;
    // slow: a client reading about 4 MB/s (it pauses after each chunk for as long as
    // the chunk takes at that rate), so the service must not read ahead of it.
    for (const mode of ['first', 'again', 'slow'] as const) {
      await ask(child, { type: 'start' });
      let done = false;
      const others =
        mode === 'slow' || process.env.BENCH_NO_OTHERS
          ? Promise.resolve([])
          : meLatencies(url, token, () => done);
      const result = await download(url, token, mode === 'slow');
      done = true;
      const latencies = (await others).sort((a, b) => a - b);
      const peaks = (await ask(child, { type: 'stop' }))!;
      if (result.status !== 200 || !result.tail.endsWith(']}}'))
        throw new Error(`export failed: ${result.status}`);
      const serverMs = peaks.serverMs[0] ?? Number.NaN;
      const others_ = latencies.length
        ? `${latencies.length} / ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} / ${latencies.at(-1)!.toFixed(1)}`
        : '-';
      rows.push(
        `| ${label} | ${mode} | ${mb(result.bytes)} | ${result.firstByteMs.toFixed(0)} | ${(serverMs / 1000).toFixed(2)} | ${mb(peaks.peak.rss - peaks.baseline.rss)} | ${mb(peaks.peak.heapUsed - peaks.baseline.heapUsed)} | ${mb(peaks.retained.heapUsed - peaks.baseline.heapUsed)} | ${others_} |`,
      );
    }
  } finally {
    child.kill();
  }
  return rows;
}

async function orchestrate() {
  console.log(
    `Export of one person with ${EVENTS} events and ${TASKS} tasks (each with one checklist item)\n`,
  );
  console.log(
    '| database | run | export MB | first byte ms | service time s | peak RSS above baseline MB | peak heap above baseline MB | heap retained after GC MB | /api/auth/me during export: n / p50 ms / max ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const file = join(tmpdir(), `privacy-export-bench-${process.pid}.db`);
  if (!process.env.BENCH_SKIP_SQLITE)
    try {
      for (const row of await measure('SQLite', `sqlite:${file}`)) console.log(row);
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    }
  if (process.env.BENCH_SKIP_PG) return;
  const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `privacy_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    for (const row of await measure('PostgreSQL', url.toString())) console.log(row);
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
