// What every benchmark shares: the service started exactly as `npm start` starts it
// (the command in package.json, default logging into a file), a bare Fastify 5
// hello-world floor in a process of its own, autocannon in the orchestrating
// process, and the server processes' CPU time and resident memory read from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const ROOT = new URL('..', import.meta.url).pathname;
/** Linux clock ticks per second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;
const PAGE_BYTES = 4096;

export interface Server {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  base: string;
}

/** A port nobody listens on right now (the service takes its port from PORT). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function ready(child: ChildProcess, base: string, path: string, name: string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${base}${path}`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The bare Fastify hello-world, in a process of its own. */
export async function startFloor(): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bench/floor.mjs')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await ready(child, base, '/', 'the floor');
  return { child, base };
}

/**
 * The bundled mail catcher in a process of its own (dist/tools/emulators/mail/main.js), as
 * a deployment's SMTP server is: a service given its `smtpUrl` sends its mail there, and the
 * catcher's work of receiving it is not counted as the service's. It runs under SCHED_IDLE
 * (util-linux's `chrt`): a deployment's SMTP server is another machine and takes none of the
 * service's CPU, and on this one it should take only what the service and the load leave
 * (receiving a mail costs it 0.2-0.7 ms, a booking's worth). A nice value does not do that: a
 * thread at nice 19 beside the bookings cost them a tenth of their throughput.
 */
export async function startMailCatcher(): Promise<Server & { smtpUrl: string }> {
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const child = spawn(
    'chrt',
    [
      '--idle',
      '0',
      process.execPath,
      join(ROOT, 'dist/tools/emulators/mail/main.js'),
      String(smtpPort),
      String(httpPort),
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const base = `http://127.0.0.1:${httpPort}`;
  await ready(child, base, '/__admin/messages', 'the mail catcher');
  return { child, base, smtpUrl: `smtp://127.0.0.1:${smtpPort}` };
}

/**
 * The environment that makes a server started by `startService` write what the run asked for
 * when it stops: with BENCH_PROFILE_DIR its V8 CPU profile to `<dir>/<name>/`
 * (bench/cpu-profile.cjs, preloaded: Node 20 refuses --cpu-prof in NODE_OPTIONS); with
 * BENCH_SQL_TIMES_DIR the time of each SQLite statement to `<dir>/<name>/`
 * (bench/sqlite-statement-times.cjs). Without either, nothing.
 */
export function profiledEnv(name: string): Record<string, string> {
  const profiles = process.env.BENCH_PROFILE_DIR;
  const sqlTimes = process.env.BENCH_SQL_TIMES_DIR;
  const preloads = [
    ...(profiles ? ['cpu-profile.cjs'] : []),
    ...(sqlTimes ? ['sqlite-statement-times.cjs'] : []),
  ];
  return {
    ...(preloads.length > 0
      ? { NODE_OPTIONS: preloads.map((file) => `--require ${join(ROOT, 'bench', file)}`).join(' ') }
      : {}),
    ...(profiles ? { BENCH_PROFILE_OUT: join(profiles, name) } : {}),
    ...(sqlTimes ? { BENCH_SQL_TIMES_OUT: join(sqlTimes, name) } : {}),
  };
}

/**
 * The service as `npm start` starts it: package.json's start command, run by a
 * shell (`exec`, so the shell's pid is the service's), default logging written
 * to `logFile`. `env` adds to the environment: DATABASE_URL, and the rate limits
 * a load generator on one address would otherwise hit within a second.
 */
export async function startService(env: Record<string, string>, logFile: string): Promise<Server> {
  const port = await freePort();
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const log = openSync(logFile, 'w');
  const child = spawn('sh', ['-c', `exec ${scripts.start}`], {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
      PORT: String(port),
      RATE_LIMIT_MAX: '100000000',
      PUBLIC_RATE_LIMIT_MAX: '100000000',
      LOGIN_RATE_LIMIT_MAX: '100000000',
      ...env,
    },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  const base = `http://127.0.0.1:${port}`;
  await ready(child, base, '/api/health', 'the service');
  return { child, base };
}

/** Stops a server and waits for it (SIGTERM: the service closes its database). */
export async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const gone = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await gone;
}

function descendants(pid: number): number[] {
  const found = [pid];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children ? children.split(' ') : []) found.push(...descendants(Number(child)));
    }
  } catch {
    // Gone, or not Linux.
  }
  return found;
}

/**
 * CPU time (µs) of a process from its /proc/<pid>/stat text: user and system, and with
 * `exitedChildren` those of its children already gone (fields utime, stime, cutime, cstime).
 */
function statCpuUs(stat: string, exitedChildren = false): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, ...(exitedChildren ? [13, 14] : [])].reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks / CLOCK_TICKS) * 1e6;
}

/**
 * CPU time (µs) of each thread of a server (and of its descendants'), by thread: `main`, then
 * `thread <id>` (Node names none of its other threads: V8's helpers, mostly the garbage
 * collector's, run alike; a worker such as the mail sender is one busy thread of its own).
 */
function threadsCpuUs(server: Server): Map<string, number> {
  const threads = new Map<string, number>();
  for (const pid of descendants(server.child.pid!)) {
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const name = `${pid === server.child.pid ? '' : `process ${pid} `}${task === String(pid) ? 'main' : `thread ${task}`}`;
        threads.set(name, statCpuUs(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')));
      }
    } catch {
      // Gone, or not Linux.
    }
  }
  return threads;
}

/** With BENCH_THREADS=1, each thread's CPU µs a request of the case, on stderr. */
function printThreads(
  title: string,
  before: Map<string, number>,
  after: Map<string, number>,
  requests: number,
) {
  if (!process.env.BENCH_THREADS) return;
  const each = [...after].map(
    ([name, us]) => `${name} ${Math.round((us - (before.get(name) ?? 0)) / requests)}`,
  );
  console.error(`${title}, CPU µs a request by thread: ${each.join(', ')}`);
}

/** CPU time (µs) of a server and its descendants, from /proc (null off Linux). */
export function cpuUs(server: Server): number | null {
  try {
    let us = 0;
    for (const pid of descendants(server.child.pid!))
      us += statCpuUs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return us;
  } catch {
    return null;
  }
}

/**
 * CPU time (µs) of a server's main thread alone, the one that answers requests (null off
 * Linux): what its other threads (a mail sender, the garbage collector's) take is not in it.
 */
export function requestThreadCpuUs(server: Server): number | null {
  try {
    const pid = server.child.pid!;
    return statCpuUs(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The request thread's time on a core and runnable but waiting for one (ns), from the
 * scheduler's own counts (/proc/<pid>/task/<pid>/schedstat; null off Linux). A thread that is
 * on a core or waiting for one all the time is limited by the machine's cores, not by waiting
 * for the database or the clients.
 */
function requestThreadSchedNs(server: Server): { running: number; waiting: number } | null {
  try {
    const pid = server.child.pid!;
    const [running, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .split(' ')
      .map(Number);
    return { running: running!, waiting: waiting! };
  } catch {
    return null;
  }
}

/**
 * CPU time (µs) of every PostgreSQL process of this machine (its backends, autovacuum and
 * writers), from /proc (null off Linux): what a request costs the database beside the service.
 */
export function postgresCpuUs(): number | null {
  try {
    let us = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
        // Its own time and its exited children's (an autovacuum worker's, once it is gone).
        us += statCpuUs(stat, true);
      } catch {
        // Exited meanwhile.
      }
    }
    return us;
  } catch {
    return null;
  }
}

/** Resident memory (MB) of a server and its descendants, from /proc (null off Linux). */
export function rssMb(server: Server): number | null {
  try {
    let pages = 0;
    for (const pid of descendants(server.child.pid!)) {
      pages += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    }
    return Math.round((pages * PAGE_BYTES) / 1e6);
  } catch {
    return null;
  }
}

/** Samples a server's resident memory every 100 ms until stopped; answers the peak. */
export function watchPeakRss(server: Server): { stop(): number | null } {
  let peak: number | null = null;
  const timer = setInterval(() => {
    const now = rssMb(server);
    if (now !== null) peak = Math.max(peak ?? 0, now);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export interface LoadOptions {
  title: string;
  server: Server;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** Seconds of load before the measured run, so the JIT has compiled the hot path. */
  warmupSeconds?: number;
  /** Per-request requests, when each must differ (autocannon's `requests`). */
  requests?: autocannon.Request[];
  /** Status codes that count as success besides 2xx (for example 409 in a race). */
  accept?: (status: number) => boolean;
  /** Also measure the PostgreSQL processes' CPU per request (the service runs on PostgreSQL). */
  postgres?: boolean;
}

export interface LoadRow {
  title: string;
  rps: number;
  p50: number;
  p99: number;
  /** The server's CPU time per request (µs), the figure a busy machine moves least. */
  serverCpuUs: number | null;
  /** PostgreSQL's CPU time per request (µs), when `postgres` was asked for. */
  databaseCpuUs?: number | null;
  requests: number;
  /** The floor's requests per second measured just before this case (`loadBesideFloor`). */
  floorRps?: number;
  /**
   * Shares (%) of the case's time the server's request thread was on a core and was waiting
   * for one. Adding up to about 100, the thread always had work: on a core nearly all of it, the
   * thread is the limit; a large wait, the machine's cores are.
   */
  requestThread?: { running: number; waiting: number } | null;
}

/** The middle of a run's rounds (the upper middle of an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const BENCH_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** Rounds of the benches that alternate their cases, so the machine's drift falls on each alike. */
export const BENCH_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** autocannon against one path; throws on errors or non-2xx answers (unless `accept`ed). */
export async function load(options: LoadOptions): Promise<LoadRow> {
  const url = `${options.server.base}${options.path}`;
  const common = {
    url,
    method: options.method ?? 'GET',
    headers: { ...(options.body ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(options.body ? { body: options.body } : {}),
    ...(options.requests ? { requests: options.requests } : {}),
    connections: options.connections ?? BENCH_CONNECTIONS,
  };
  const warmup = options.warmupSeconds ?? 2;
  if (warmup > 0) await autocannon({ ...common, duration: warmup });
  const threadsBefore = threadsCpuUs(options.server);
  const before = cpuUs(options.server);
  const databaseBefore = options.postgres ? postgresCpuUs() : null;
  const schedBefore = requestThreadSchedNs(options.server);
  const startedNs = process.hrtime.bigint();
  let unexpected = 0;
  const result = await autocannon({
    ...common,
    duration: options.seconds ?? BENCH_SECONDS,
    setupClient: (client) => {
      client.on('response', (status: number) => {
        if ((status < 200 || status >= 300) && !options.accept?.(status)) unexpected++;
      });
    },
  } as autocannon.Options);
  const after = cpuUs(options.server);
  printThreads(options.title, threadsBefore, threadsCpuUs(options.server), result.requests.total);
  const databaseAfter = options.postgres ? postgresCpuUs() : null;
  const schedAfter = requestThreadSchedNs(options.server);
  const elapsedNs = Number(process.hrtime.bigint() - startedNs);
  if (unexpected || result.errors || result.timeouts)
    throw new Error(
      `${options.title}: ${unexpected} unexpected statuses, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  const requests = result.requests.total;
  return {
    title: options.title,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    serverCpuUs: before === null || after === null ? null : Math.round((after - before) / requests),
    ...(options.postgres
      ? {
          databaseCpuUs:
            databaseBefore === null || databaseAfter === null
              ? null
              : Math.round((databaseAfter - databaseBefore) / requests),
        }
      : {}),
    requests,
    requestThread:
      schedBefore === null || schedAfter === null
        ? null
        : {
            running: Math.round((100 * (schedAfter.running - schedBefore.running)) / elapsedNs),
            waiting: Math.round((100 * (schedAfter.waiting - schedBefore.waiting)) / elapsedNs),
          },
  };
}

/** The next slot the PostgreSQL floor asks for in each database, so no floor asks a time twice. */
const floorSlots = new Map<string, number>();

/**
 * The PostgreSQL floor (bench/pg-floor.mjs, a process of its own): a bare `pg` Pool of
 * BENCH_CONNECTIONS clients inserting bookings into a table of reservations' shape under the
 * same exclusion constraint, one autocommitted INSERT each, in a scratch schema of the
 * database at `databaseUrl`. With `reservations`, the same inserts into the service's own
 * `reservations` table of that database, on that lane. Answered as a row: inserts per second,
 * their latency, the client's CPU and PostgreSQL's CPU an insert.
 */
export async function postgresFloor(
  databaseUrl: string,
  title: string,
  reservations?: { organisationId: number; resourceTypeId: number; resourceId: number; userId: number },
): Promise<LoadRow> {
  const firstSlot = floorSlots.get(databaseUrl) ?? 0;
  const databaseBefore = postgresCpuUs();
  const child = spawn(process.execPath, [join(ROOT, 'bench/pg-floor.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      CONNECTIONS: String(BENCH_CONNECTIONS),
      SECONDS: String(BENCH_SECONDS),
      SLOT_OFFSET: String(firstSlot),
      ...(reservations ? { RESERVATIONS: JSON.stringify(reservations) } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${title}: the PostgreSQL floor exited with ${code}`);
  const databaseAfter = postgresCpuUs();
  const floor = JSON.parse(output) as {
    inserts: number;
    seconds: number;
    p50: number;
    p99: number;
    cpuUs: number;
    nextSlot: number;
  };
  floorSlots.set(databaseUrl, floor.nextSlot);
  return {
    title,
    rps: Math.round(floor.inserts / floor.seconds),
    p50: floor.p50,
    p99: floor.p99,
    serverCpuUs: floor.cpuUs,
    // Read around the whole process: PostgreSQL's CPU spread over every insert it made, warm-up's too.
    databaseCpuUs:
      databaseBefore === null || databaseAfter === null
        ? null
        : Math.round((databaseAfter - databaseBefore) / (floor.nextSlot - firstSlot)),
    requests: floor.inserts,
  };
}

/**
 * `load`, right after the floor under the same load: on this shared machine the
 * floor drifts by a third within minutes, so a case's share of the floor is
 * taken against the floor of that moment, not the one at the start of the run.
 */
export async function loadBesideFloor(floor: Server, options: LoadOptions): Promise<LoadRow> {
  const floorRow = await load({
    title: 'floor',
    server: floor,
    path: '/',
    ...(options.connections ? { connections: options.connections } : {}),
    ...(options.seconds ? { seconds: options.seconds } : {}),
  });
  return { ...(await load(options)), floorRps: floorRow.rps };
}

/**
 * A markdown table of rows, each with its share of the floor's requests per second:
 * the floor measured beside it when there is one, else `floorRps`.
 */
export function table(rows: LoadRow[], floorRps: number): string {
  const paired = rows.some((r) => r.floorRps !== undefined);
  const database = rows.some((r) => r.databaseCpuUs !== undefined);
  const sched = rows.some((r) => r.requestThread);
  const lines = [
    `| case | req/s |${paired ? ' floor req/s beside it |' : ''} share of floor | p50 ms | p99 ms | server CPU µs/request |${database ? ' PostgreSQL CPU µs/request |' : ''}${sched ? ' request thread on a core / waiting for one |' : ''}`,
    `|---|---|${paired ? '---|' : ''}---|---|---|---|${database ? '---|' : ''}${sched ? '---|' : ''}`,
  ];
  for (const r of rows) {
    const floor = r.floorRps ?? floorRps;
    const share = ((r.rps / floor) * 100).toFixed(r.rps / floor < 0.1 ? 1 : 0);
    const floorCell = paired ? ` ${r.floorRps ?? '-'} |` : '';
    const databaseCell = database ? ` ${r.databaseCpuUs ?? '-'} |` : '';
    const thread = r.requestThread;
    const schedCell = sched ? ` ${thread ? `${thread.running}% / ${thread.waiting}%` : '-'} |` : '';
    lines.push(
      `| ${r.title} | ${r.rps} |${floorCell} ${share}% | ${r.p50} | ${r.p99} | ${r.serverCpuUs ?? '-'} |${databaseCell}${schedCell}`,
    );
  }
  return lines.join('\n');
}

/** JSON over fetch, throwing on a non-2xx answer: for seeding through the API. */
export async function api<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** Where benchmarks create their PostgreSQL databases (trust auth on loopback). */
export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `work` with the URL of a PostgreSQL database of its own, dropped afterwards. */
export async function withPostgresDatabase<T>(prefix: string, work: (url: string) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    try {
      return await work(url.toString());
    } finally {
      if (process.env.BENCH_KEEP_DATABASE) console.log(`kept PostgreSQL database ${name}`);
      else await admin.query(`drop database if exists ${name} with (force)`);
    }
  } finally {
    await admin.end();
  }
}

/**
 * Runs `measure` on SQLite (a fresh file; skipped with BENCH_SKIP_SQLITE=1) and then
 * PostgreSQL (a fresh database; skipped with BENCH_SKIP_PG=1), each with the service started
 * as `npm start` starts it and the floor of the same run, and prints each database's rows
 * against that floor (the last row `measure` answers must be the floor's). A failed run keeps the service's log. With
 * BENCH_PROFILE_DIR each service writes its CPU profile (`profiledEnv`). `env` adds to each service's environment.
 */
export async function onBothDatabases(
  name: string,
  measure: (database: string, service: Server, floor: Server, databaseUrl: string) => Promise<LoadRow[]>,
  header = '',
  env: Record<string, string> = {},
): Promise<void> {
  const floor = await startFloor();
  const runs: Array<{ rows: LoadRow[]; floorRps: number }> = [];
  const run = async (database: string, databaseUrl: string) => {
    const logFile = join(tmpdir(), `bench-${name}-${process.pid}-${Date.now()}.log`);
    const service = await startService(
      { ...env, DATABASE_URL: databaseUrl, ...profiledEnv(database.toLowerCase()) },
      logFile,
    );
    let finished = false;
    try {
      const rows = await measure(database, service, floor, databaseUrl);
      runs.push({ rows, floorRps: rows[rows.length - 1]!.rps });
      finished = true;
    } finally {
      await stop(service);
      if (finished) rmSync(logFile, { force: true });
      else console.error(`service log: ${logFile}`);
    }
  };
  try {
    if (!process.env.BENCH_SKIP_SQLITE) {
      const sqliteFile = join(tmpdir(), `bench-${name}-${process.pid}.db`);
      try {
        await run('SQLite', `sqlite:${sqliteFile}`);
      } finally {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
      }
    }
    if (!process.env.BENCH_SKIP_PG) {
      await withPostgresDatabase(`bench_${name}`, (url) => run('PostgreSQL', url));
    }
  } finally {
    await stop(floor);
  }
  console.log(`${header}Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`);
  for (const { rows, floorRps } of runs) console.log(`${table(rows, floorRps)}\n`);
}

type SQLiteDatabase = import('better-sqlite3').Database;
type PostgresClient = import('pg').Client;

/** Runs `sqlite` or `postgres` on a connection of its own to the database at `databaseUrl`. */
export async function onDatabase<T>(
  databaseUrl: string,
  sqlite: (db: SQLiteDatabase) => T,
  postgres: (client: PostgresClient) => Promise<T>,
): Promise<T> {
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    try {
      return sqlite(db);
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await postgres(client);
  } finally {
    await client.end();
  }
}

/**
 * Whether the mail drain has passed every event written so far: each event's mails are then
 * sent. Two index lookups, so that waiting for the drain adds no work that grows with the
 * tables to the database CPU being measured (a count of every reservation did).
 */
export function mailDrained(databaseUrl: string): Promise<boolean> {
  const drainedTo = `coalesce((select cast(last_event_id as bigint) from mail_consumer_positions
    where consumer = 'mail'), 0)`;
  return onDatabase(
    databaseUrl,
    (db) =>
      Boolean(
        (
          db
            .prepare(`select coalesce((select max(id) from outbox_events), 0) <= ${drainedTo} as drained`)
            .get() as { drained: number }
        ).drained,
      ),
    // PostgreSQL's events are read in `position` order, given after commit: none may lack one.
    async (client) =>
      (
        await client.query<{ drained: boolean }>(
          `select coalesce((select max(position) from outbox_events), 0) <= ${drainedTo}
            and not exists (select 1 from outbox_events where position is null) as drained`,
        )
      ).rows[0]!.drained,
  );
}

/**
 * VACUUM and ANALYZE on a PostgreSQL database, as autovacuum would: this machine's PostgreSQL
 * runs without it (its default is on), so the dead rows of one measure would make every later
 * one dearer, and the planner would plan every statement of a grown table from no statistics.
 */
export function vacuum(databaseUrl: string): Promise<unknown> {
  return onDatabase(
    databaseUrl,
    () => undefined,
    (client) => client.query('vacuum analyze'),
  );
}

/**
 * Waits until the mail drain has passed every event written so far: after a seed written
 * straight into the database (its outbox triggers fired for every row), so that the service
 * measured is not also mailing the seed's bookings.
 */
export async function untilMailDrained(databaseUrl: string, name: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (!(await mailDrained(databaseUrl))) {
    if (Date.now() > deadline) throw new Error(`${name}: mail not sent within 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
