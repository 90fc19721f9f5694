// Availability benchmark (issues 14, 22): a type with one parent of 50 capacity lanes, 31
// days, 1,000 and 10,000 reservations in range (a fifth of them holds, half live, half lapsed), on SQLite and on PostgreSQL, beside the
// bare Fastify floor measured in the same run. The service runs as `npm start` runs it;
// the catalogue is seeded through its API, the reservations written straight into its
// database (as many bookings would leave them; measured once the service has mailed their
// confirmations, as its outbox does for every booking). Measured: type availability at 1 client
// (p50/p99), and at 10 clients together with a second load on GET /api/health, whose
// p99 shows whether other requests wait behind availability.
// Run: npm run bench -- availability (PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_SKIP_PG=1 to skip PostgreSQL; BENCH_COUNTS=1000,10000).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import {
  api,
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

const LANES = 50;
const DAYS = 31;
const HOUR = 3_600_000;
const COUNTS = (process.env.BENCH_COUNTS ?? '1000,10000').split(',').map(Number);

interface Seeded {
  headers: Record<string, string>;
  organisationId: number;
  typeId: number;
  laneIds: number[];
  start: number;
}

/** An account, an organisation, the type and its parent of 50 lanes, through the API. */
async function seedCatalogue(base: string): Promise<Seeded> {
  const registered = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const headers = { authorization: `Bearer ${registered.accessToken}` };
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    api<T>(base, method, path, body, headers);
  await call('POST', '/api/organisations', { name: 'Bench', timezone: 'Europe/Berlin' });
  const type = await call<{ id: number }>('POST', '/api/resource-types', {
    name: 'Desks',
    bookingMode: 'BOTH',
    minBookingDuration: 30,
    bufferTime: 10,
    schedulePolicy: {
      operatingHours: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
        dayOfWeek,
        openTime: '07:00',
        closeTime: '22:00',
      })),
    },
  });
  const parent = await call<{ id: number; organisationId: number }>('POST', '/api/resources', {
    name: 'Desk',
    resourceTypeId: type.id,
    capacity: LANES,
  });
  const lanes = await call<Array<{ id: number; parentResourceId: number | null }>>(
    'GET',
    `/api/resources?resourceTypeId=${type.id}`,
  );
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() + 2);
  return {
    headers,
    organisationId: parent.organisationId,
    typeId: type.id,
    laneIds: lanes.filter((lane) => lane.parentResourceId === parent.id).map((lane) => lane.id),
    start: start.getTime(),
  };
}

/** 2,000 of 10,000 reservations are holds: a live one every tenth, a lapsed one every tenth. */
function holdOf(i: number, now: number) {
  if (i % 5 !== 0) return { status: 'confirmed' as const, expiresAt: null };
  const live = i % 10 === 0;
  return {
    status: 'held' as const,
    expiresAt: new Date(now + (live ? 25 : -60) * 60_000).toISOString(),
  };
}

/**
 * Reservations up to `count` in the 31 days, hour-long, lanes round-robin with each
 * layer two hours later, written into the service's database.
 */
async function seedReservations(databaseUrl: string, s: Seeded, from: number, count: number) {
  const db = createDatabase(databaseUrl);
  try {
    const now = new Date().toISOString();
    const rows = [];
    for (let i = from; i < count; i++) {
      const slot = Math.floor(i / LANES);
      const at =
        s.start +
        (slot % DAYS) * 24 * HOUR +
        (8 + Math.floor(slot / DAYS) * 2) * HOUR +
        (i % 3) * 15 * 60_000;
      rows.push({
        organisationId: s.organisationId,
        resourceTypeId: s.typeId,
        resourceId: s.laneIds[i % LANES]!,
        // Every fifth a hold: half of them live, half lapsed but not yet marked by the job.
        ...holdOf(i, Date.parse(now)),
        startTime: new Date(at).toISOString(),
        endTime: new Date(at + HOUR).toISOString(),
        customerName: 'Seed',
        customerEmail: 'seed@example.test',
        customerPhone: null,
        customerInfo: '{}',
        notes: null,
        priceAmount: null,
        priceCurrency: null,
        source: 'api' as const,
        createdByUserId: null,
        createdAt: now,
        updatedAt: now,
      });
    }
    for (let i = 0; i < rows.length; i += 500)
      await db.kysely
        .insertInto('reservations')
        .values(rows.slice(i, i + 500))
        .execute();
    // Written behind the service's back: record their length as a booking would.
    await db.kysely
      .updateTable('resourceTypes')
      .set({ longestReservationMinutes: 60 })
      .where('id', '=', s.typeId)
      .execute();
    if (db.dialect === 'postgres') await sql`analyze reservations`.execute(db.kysely);
  } finally {
    await db.close();
  }
}

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
function startBooker(base: string, s: Seeded) {
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
