// Foundation benchmark: GET /api/health and GET /api/auth/me (JWT, API key) on
// SQLite, beside a bare Fastify hello-world measured in the same run (the floor).
// Each server runs in its own process, apart from the load generator, so the two
// do not share one event loop. Run: npm run bench -- foundation
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const role = process.argv.find((arg) => arg.startsWith('--serve='))?.slice('--serve='.length);

if (role) {
  await serve(role);
} else {
  await orchestrate();
}

/** Server side: prints one JSON line `{url, token?, key?}` once listening; answers CPU-time asks over IPC. */
async function serve(kind: string) {
  process.on('message', () => process.send?.(process.cpuUsage()));
  if (kind === 'floor') {
    const { default: Fastify } = await import('fastify');
    const floor = Fastify({ logger: false });
    floor.get('/', async () => ({ hello: 'world' }));
    console.log(JSON.stringify({ url: await floor.listen({ port: 0, host: '127.0.0.1' }) }));
    return;
  }
  const { buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const app = await buildApp(
    loadConfig({
      DATABASE_URL: `sqlite:${kind}`,
      RATE_LIMIT_MAX: '100000000',
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
    }),
    { logger: false },
  );
  const registered = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: 'bench@example.test', password: 'benchmark password', name: 'Bench' },
  });
  const token = registered.json().accessToken as string;
  const key = (
    await app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: { authorization: `Bearer ${token}` },
      payload: { label: 'bench' },
    })
  ).json().key as string;
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ url, token, key }));
}

function start(kind: string): Promise<{ child: ChildProcess; url: string; token?: string; key?: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL(import.meta.url).pathname, `--serve=${kind}`],
    {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, ...JSON.parse(line) });
    });
    child.on('exit', (code) => reject(new Error(`server ${kind} exited with ${code}`)));
  });
}

/** The server process's CPU time so far, in microseconds. */
function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage: NodeJS.CpuUsage) => resolve(usage.user + usage.system));
    child.send('cpu');
  });
}

async function measure(
  title: string,
  server: { child: ChildProcess; url: string },
  path = '',
  headers: Record<string, string> = {},
) {
  const url = `${server.url}${path}`;
  // A short warm-up so the JIT has compiled the hot path before the measured run.
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const cpuBefore = await serverCpu(server.child);
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_SECONDS });
  const cpu = (await serverCpu(server.child)) - cpuBefore;
  if (result.non2xx || result.errors)
    throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const row = {
    title,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    serverCpuUs: Math.round(cpu / result.requests.total),
    bytes: Math.round(result.throughput.total / result.requests.total),
  };
  console.error(JSON.stringify(row));
  return row;
}

async function orchestrate() {
  const dbFile = join(tmpdir(), `bench-foundation-${process.pid}.db`);
  const floor = await start('floor');
  const rows = [await measure('floor: bare Fastify hello-world', floor)];
  floor.child.kill();
  const app = await start(dbFile);
  rows.push(
    await measure('GET /api/health', app, '/api/health'),
    await measure('GET /api/auth/me (JWT)', app, '/api/auth/me', { authorization: `Bearer ${app.token}` }),
    await measure('GET /api/auth/me (API key)', app, '/api/auth/me', { 'x-api-key': app.key! }),
  );
  app.child.kill();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });

  const floorRps = rows[0]!.rps;
  console.log(`connections ${CONNECTIONS}, ${DURATION_SECONDS} s per route, Node ${process.version}`);
  console.log(
    '| route | req/s | share of floor | p50 ms | p99 ms | server CPU µs/request | response bytes |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const share = Math.round((r.rps / floorRps) * 100);
    console.log(
      `| ${r.title} | ${r.rps} | ${share}% | ${r.p50} | ${r.p99} | ${r.serverCpuUs} | ${r.bytes} |`,
    );
  }
}
