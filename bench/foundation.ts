// Foundation benchmark: the per-request overhead every route pays. GET /api/health and
// GET /api/auth/me (login JWT, API key) on the service started as `npm start` starts it
// (default logging, into a file; a temp SQLite, or PostgreSQL with BENCH_PG=1), each case
// right after the bare Fastify floor under the same load, plus the service's resident
// memory idle and at the peak of the run. The cases alternate for BENCH_ROUNDS rounds
// (default 3): /me's share of health is the median of the rounds' shares, as the machine's
// speed moves within a run. Run: npm run bench -- foundation
// (BENCH_SECONDS, default 10; BENCH_CONNECTIONS, default 20;
// PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres; BENCH_PROFILE_DIR for CPU profiles.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  api,
  BENCH_CONNECTIONS,
  BENCH_ROUNDS,
  BENCH_SECONDS,
  type LoadRow,
  load,
  loadBesideFloor,
  median,
  profiledEnv,
  rssMb,
  startFloor,
  startService,
  stop,
  table,
  watchPeakRss,
  withPostgresDatabase,
} from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-foundation-'));
async function run(database: string, databaseUrl: string) {
  const floor = await startFloor();
  const floorRow = await load({ title: 'floor: bare Fastify hello-world', server: floor, path: '/' });

  const service = await startService(
    { DATABASE_URL: databaseUrl, ...profiledEnv(database.toLowerCase()) },
    join(dir, 'service.log'),
  );
  const { accessToken } = await api<{ accessToken: string }>(service.base, 'POST', '/api/auth/register', {
    email: 'bench@example.test',
    password: 'benchmark password',
    name: 'Bench',
  });
  const { key } = await api<{ key: string }>(
    service.base,
    'POST',
    '/api/auth/api-keys',
    { label: 'bench' },
    { authorization: `Bearer ${accessToken}` },
  );
  // Idle: started, one user, settled.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const idle = rssMb(service);
  const peak = watchPeakRss(service);
  const rows: LoadRow[] = [floorRow];
  const shares: { jwt: number[]; apiKey: number[] } = { jwt: [], apiKey: [] };
  for (let round = 1; round <= BENCH_ROUNDS; round++) {
    const health = await loadBesideFloor(floor, {
      title: `GET /api/health (round ${round})`,
      server: service,
      path: '/api/health',
    });
    const jwt = await loadBesideFloor(floor, {
      title: `GET /api/auth/me, login JWT (round ${round})`,
      server: service,
      path: '/api/auth/me',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const apiKey = await loadBesideFloor(floor, {
      title: `GET /api/auth/me, API key (round ${round})`,
      server: service,
      path: '/api/auth/me',
      headers: { 'x-api-key': key },
    });
    rows.push(health, jwt, apiKey);
    shares.jwt.push(jwt.rps / health.rps);
    shares.apiKey.push(apiKey.rps / health.rps);
  }
  const peakMb = peak.stop();
  await stop(service);
  await stop(floor);

  console.log(
    `${database}; ${BENCH_CONNECTIONS} connections, ${BENCH_SECONDS} s per case after 2 s of warm-up, Node ${process.version}`,
  );
  console.log(table(rows, floorRow.rps));
  const shown = (values: number[]) =>
    `${median(values).toFixed(2)} (rounds ${values.map((v) => v.toFixed(2)).join(', ')})`;
  console.log(
    `\n/api/auth/me against health: login JWT ${shown(shares.jwt)}; API key ${shown(shares.apiKey)}`,
  );
  console.log(`\nservice resident memory: ${idle} MB idle, ${peakMb} MB at the peak of the run`);
}

try {
  if (process.env.BENCH_PG === '1')
    await withPostgresDatabase('bench_foundation', (url) => run('PostgreSQL', url));
  else await run('SQLite', `sqlite:${join(dir, 'service.db')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
