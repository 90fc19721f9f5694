// Foundation benchmark: GET /api/health and GET /api/auth/me (JWT, API key) on
// SQLite, beside a bare Fastify hello-world measured in the same run (the floor).
// Run: npm run bench -- foundation   (results go to docs/performance.md by hand)
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function measure(title: string, url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_SECONDS });
  const row = {
    title,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(JSON.stringify(row));
  return row;
}

const floor = Fastify({ logger: false });
floor.get('/', async () => ({ hello: 'world' }));
const floorUrl = await floor.listen({ port: 0, host: '127.0.0.1' });

const dbFile = join(tmpdir(), `bench-foundation-${process.pid}.db`);
const app = await buildApp(
  loadConfig({ DATABASE_URL: `sqlite:${dbFile}`, RATE_LIMIT_MAX: '100000000', LOG_LEVEL: 'silent' }),
  { logger: false },
);
const appUrl = await app.listen({ port: 0, host: '127.0.0.1' });
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

const rows = [
  await measure('floor: bare Fastify hello-world', floorUrl),
  await measure('GET /api/health', `${appUrl}/api/health`),
  await measure('GET /api/auth/me (JWT)', `${appUrl}/api/auth/me`, { authorization: `Bearer ${token}` }),
  await measure('GET /api/auth/me (API key)', `${appUrl}/api/auth/me`, { 'x-api-key': key }),
];
const floorRps = rows[0]!.rps;
console.log('\n| route | req/s | p50 ms | p99 ms | share of floor |');
console.log('|---|---|---|---|---|');
for (const row of rows) {
  console.log(
    `| ${row.title} | ${row.rps} | ${row.p50} | ${row.p99} | ${Math.round((row.rps / floorRps) * 100)}% |`,
  );
}

await app.close();
await floor.close();
rmSync(dbFile, { force: true });
rmSync(`${dbFile}-wal`, { force: true });
rmSync(`${dbFile}-shm`, { force: true });
