// Availability benchmark: a POOL type with one parent of 50 lanes, 31 days, and
// 2,500 / 5,000 / 10,000 existing reservations. Measures availability p50/p99
// over the 31 days (type pool and resource) and reservation creation per second,
// on SQLite and on PostgreSQL. Run: npm run bench -- availability
// (PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres; BENCH_SKIP_PG=1 to skip).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, type Db } from '../src/db/database.js';

const LANES = 50;
const DAYS = 31;
const HOUR = 3_600_000;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const COUNTS = (process.env.BENCH_COUNTS ?? '2500,5000,10000').split(',').map(Number);

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(label: string, db: Db) {
  const app = await buildApp(
    loadConfig({ RATE_LIMIT_MAX: '100000000', LOG_LEVEL: 'silent', NODE_ENV: 'test' }),
    { db, logger: false },
  );
  const register = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: `bench-${label}@example.test`, password: 'benchmark password', name: 'Bench' },
  });
  const auth = { authorization: `Bearer ${register.json().accessToken}` };
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const r = await app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.json();
  };
  await call('POST', '/api/organisations', { name: 'Bench', timezone: 'Europe/Berlin' });
  const type = await call('POST', '/api/resource-types', {
    name: 'Desks',
    bookingMode: 'BOTH',
    minBookingDuration: 30,
    bufferTime: 10,
    schedulePolicy: {
      operatingHours: [0, 1, 2, 3, 4, 5, 6].map((d) => ({
        dayOfWeek: d,
        openTime: '07:00',
        closeTime: '22:00',
      })),
    },
  });
  const parent = await call('POST', '/api/resources', {
    name: 'Desk',
    resourceTypeId: type.id,
    capacity: LANES,
  });
  const lanes = (await call('GET', `/api/resources?resourceTypeId=${type.id}`)).filter(
    (r: { parentResourceId: number | null }) => r.parentResourceId === parent.id,
  );
  const organisationId = parent.organisationId as number;
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() + 2);
  const from = start.toISOString();
  const to = new Date(start.getTime() + DAYS * 24 * HOUR).toISOString();

  // Reservations fill lane-hours 08:00..21:00 UTC round-robin; each step adds one layer.
  let seeded = 0;
  const seedTo = async (count: number) => {
    const rows = [];
    for (; seeded < count; seeded++) {
      const lane = lanes[seeded % LANES];
      const slot = Math.floor(seeded / LANES);
      const day = slot % DAYS;
      const hour = 8 + Math.floor(slot / DAYS) * 2;
      const s = start.getTime() + day * 24 * HOUR + hour * HOUR;
      const now = new Date().toISOString();
      rows.push({
        organisationId,
        resourceTypeId: type.id,
        resourceId: lane.id,
        status: 'confirmed' as const,
        startTime: new Date(s).toISOString(),
        endTime: new Date(s + HOUR).toISOString(),
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
    for (let i = 0; i < rows.length; i += 500) {
      await db.kysely
        .insertInto('reservations')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    // Seeded behind the service's back: record their length as a booking would.
    await db.kysely
      .updateTable('resourceTypes')
      .set({ longestReservationMinutes: 60 })
      .where('id', '=', type.id)
      .execute();
  };

  const measure = async (url: string) => {
    for (let i = 0; i < 5; i++) await call('GET', url);
    const times: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const t0 = performance.now();
      await call('GET', url);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50).toFixed(1), p99: percentile(times, 99).toFixed(1) };
  };

  const rows: string[] = [];
  for (const count of COUNTS) {
    await seedTo(count);
    if (db.dialect === 'postgres')
      await (await import('kysely')).sql`analyze reservations`.execute(db.kysely);
    const pool = await measure(`/api/resource-types/${type.id}/availability?from=${from}&to=${to}`);
    const single = await measure(`/api/resources/${parent.id}/availability?from=${from}&to=${to}`);
    rows.push(`| ${label} | ${count} | type (pool + per resource) | ${pool.p50} | ${pool.p99} |`);
    rows.push(`| ${label} | ${count} | resource (50 lanes) | ${single.p50} | ${single.p99} |`);
  }

  // Creation: sequential bookings into free early-morning time (07:00-08:00 UTC is open, unseeded).
  const bookings = 300;
  const t0 = performance.now();
  for (let i = 0; i < bookings; i++) {
    const day = i % DAYS;
    const s = start.getTime() + day * 24 * HOUR + 7 * HOUR;
    await call('POST', '/api/reservations', {
      resourceTypeId: type.id,
      startTime: new Date(s).toISOString(),
      endTime: new Date(s + 30 * 60_000).toISOString(),
      customer: { name: 'Bench', email: 'bench@example.test' },
    });
  }
  const perSecond = Math.round(bookings / ((performance.now() - t0) / 1000));
  await app.close();
  return { rows, perSecond };
}

const results: Array<{ label: string; rows: string[]; perSecond: number }> = [];
const sqliteFile = join(tmpdir(), `bench-availability-${process.pid}.db`);
const sqlite = createDatabase(`sqlite:${sqliteFile}`);
results.push({ label: 'SQLite', ...(await run('SQLite', sqlite)) });
await sqlite.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });

if (!process.env.BENCH_SKIP_PG) {
  const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `rs_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const postgres = createDatabase(url.toString());
  try {
    results.push({ label: 'PostgreSQL', ...(await run('PostgreSQL', postgres)) });
  } finally {
    await postgres.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

console.log('| database | reservations in range | query | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|');
for (const r of results) for (const row of r.rows) console.log(row);
console.log('\n| database | reservation creation (sequential, pool allocation) |');
console.log('|---|---|');
for (const r of results) console.log(`| ${r.label} | ${r.perSecond} per second |`);
