// Availability benchmark (issues 14, 22): a type with one parent of 50 capacity lanes, 31
// days, 1,000 and 10,000 reservations in range (a fifth of them holds, half live, half lapsed;
// seeded as bench/month-load.ts says), on SQLite and on PostgreSQL, beside the bare Fastify
// floor measured in the same run. The service runs as `npm start` runs it. Measured: type availability at 1 client
// (p50/p99), and at 10 clients together with a second load on GET /api/health, whose
// p99 shows whether other requests wait behind availability.
// Run: npm run bench -- availability (PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_SKIP_PG=1 to skip PostgreSQL; BENCH_COUNTS=1000,10000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type LoadRow,
  load,
  type Server,
  startFloor,
  startService,
  stop,
  table,
  untilMailDrained,
  withPostgresDatabase,
} from './harness.js';
import { DAYS, HOUR, type SeededMonth, seedCatalogue, seedReservations } from './month-load.js';

const COUNTS = (process.env.BENCH_COUNTS ?? '1000,10000').split(',').map(Number);

async function measure(label: string, databaseUrl: string, service: Server): Promise<LoadRow[]> {
  const seeded = await seedCatalogue(service.base);
  const from = new Date(seeded.start).toISOString();
  const to = new Date(seeded.start + DAYS * 24 * HOUR).toISOString();
  const path = `/api/resource-types/${seeded.typeId}/availability?from=${from}&to=${to}`;
  const rows: LoadRow[] = [];
  let seededCount = 0;
  for (const count of COUNTS) {
    await seedReservations(databaseUrl, seeded, seededCount, count);
    // Their confirmations are mailed from the outbox; measured once that is done.
    await untilMailDrained(databaseUrl, label);
    seededCount = count;
    const title = `${label}, ${count.toLocaleString('en')} reservations: type availability`;
    rows.push(
      await load({
        title: `${title}, 1 client`,
        server: service,
        path,
        headers: seeded.headers,
        connections: 1,
      }),
    );
    // Ten clients on availability and, at the same time, two on the health probe.
    const [busy, health] = await Promise.all([
      load({
        title: `${title}, 10 clients`,
        server: service,
        path,
        headers: seeded.headers,
        connections: 10,
      }),
      load({
        title: `${label}, ${count.toLocaleString('en')}: GET /api/health beside it, 2 clients`,
        server: service,
        path: '/api/health',
        connections: 2,
      }),
    ]);
    rows.push(busy, health);
    // The same ten clients while a booking lands every 100 ms: each raises the type's
    // version, so the next answer is computed afresh (the cost of invalidation).
    const booker = startBooker(service.base, seeded);
    try {
      rows.push(
        await load({
          title: `${title}, 10 clients, a booking every 100 ms`,
          server: service,
          path,
          headers: seeded.headers,
          connections: 10,
        }),
      );
    } finally {
      const { booked, refused } = await booker.stop();
      console.log(`${label}, ${count}: ${booked} bookings landed (${refused} refused) during the run`);
    }
  }
  return rows;
}

/** Books 30 minutes of the pool every 100 ms (06:00 UTC, a day further each time) until stopped. */
function startBooker(base: string, s: SeededMonth) {
  let stopped = false;
  let booked = 0;
  let refused = 0;
  let n = 0;
  const run = (async () => {
    while (!stopped) {
      const startTime =
        s.start + (n % DAYS) * 24 * HOUR + 6 * HOUR + (Math.floor(n / DAYS) % 2) * 30 * 60_000;
      n += 1;
      const response = await fetch(`${base}/api/reservations`, {
        method: 'POST',
        headers: { ...s.headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          resourceTypeId: s.typeId,
          startTime: new Date(startTime).toISOString(),
          endTime: new Date(startTime + HOUR / 2).toISOString(),
          customer: { name: 'Bench', email: 'bench@example.test' },
        }),
      });
      await response.text();
      if (response.status === 201) booked += 1;
      else if (response.status === 409) refused += 1;
      else throw new Error(`booking: ${response.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  // A failure surfaces in stop(), not as an unhandled rejection mid-run.
  run.catch(() => {});
  return {
    async stop() {
      stopped = true;
      await run;
      return { booked, refused };
    },
  };
}

const workdir = mkdtempSync(join(tmpdir(), 'bench-availability-'));
const floor = await startFloor();
const rows: LoadRow[] = [];
try {
  const floorRow = await load({
    title: 'floor: bare Fastify hello-world, 10 clients',
    server: floor,
    path: '/',
    connections: 10,
  });

  const sqliteUrl = `sqlite:${join(workdir, 'availability.db')}`;
  const sqlite = await startService({ DATABASE_URL: sqliteUrl }, join(workdir, 'sqlite.log'));
  try {
    rows.push(...(await measure('SQLite', sqliteUrl, sqlite)));
  } finally {
    await stop(sqlite);
  }

  if (!process.env.BENCH_SKIP_PG) {
    await withPostgresDatabase('bench_availability', async (url) => {
      const postgres = await startService({ DATABASE_URL: url }, join(workdir, 'postgres.log'));
      try {
        rows.push(...(await measure('PostgreSQL', url, postgres)));
      } finally {
        await stop(postgres);
      }
    });
  }

  console.log(`\n${table([floorRow, ...rows], floorRow.rps)}\n`);
} finally {
  await stop(floor);
  rmSync(workdir, { recursive: true, force: true });
}
