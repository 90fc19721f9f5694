// Explain benchmark (issue 52): why a day can or cannot be booked on one resource, with
// 10,000 reservations in the month over a type of 20 resources (half-hour bookings, every
// tenth a live hold), on SQLite and on PostgreSQL, beside the bare Fastify floor measured
// in the same run. Target: p50 at most 2 ms at 1 client. The catalogue is seeded through
// the API, the reservations written straight into the service's database.
// Run: npm run bench -- explain (PG_ADMIN_URL as for the others; BENCH_SKIP_PG=1 to skip PostgreSQL).
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
  withPostgresDatabase,
} from './harness.js';

const RESOURCES = 20;
const RESERVATIONS = 10_000;
const DAYS = 31;
const HOUR = 3_600_000;
const TARGET_P50_MS = 2;

interface Seeded {
  headers: Record<string, string>;
  organisationId: number;
  typeId: number;
  resourceIds: number[];
  start: number;
}

/** An account, an organisation, a type open 07:00-22:00 and its 20 resources, through the API. */
async function seedCatalogue(base: string): Promise<Seeded> {
  const registered = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const headers = { authorization: `Bearer ${registered.accessToken}` };
  const call = <T>(method: string, path: string, body?: unknown) => api<T>(base, method, path, body, headers);
  await call('POST', '/api/organisations', { name: 'Bench', timezone: 'Europe/Berlin' });
  const type = await call<{ id: number; organisationId: number }>('POST', '/api/resource-types', {
    name: 'Rooms',
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
  const resourceIds: number[] = [];
  for (let i = 0; i < RESOURCES; i++)
    resourceIds.push(
      (await call<{ id: number }>('POST', '/api/resources', { name: `Room ${i}`, resourceTypeId: type.id }))
        .id,
    );
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() + 2);
  return {
    headers,
    organisationId: type.organisationId,
    typeId: type.id,
    resourceIds,
    start: start.getTime(),
  };
}

/** 10,000 half-hour reservations over the resources and days, 40 minutes apart on each resource. */
async function seedReservations(databaseUrl: string, s: Seeded) {
  const db = createDatabase(databaseUrl);
  try {
    const now = new Date().toISOString();
    const perDay = Math.ceil(RESERVATIONS / RESOURCES / DAYS);
    const rows = Array.from({ length: RESERVATIONS }, (_, i) => {
      const slot = Math.floor(i / RESOURCES);
      const at = s.start + (slot % DAYS) * 24 * HOUR + 7 * HOUR + Math.floor(slot / DAYS) * 40 * 60_000;
      const held = i % 10 === 0;
      return {
        organisationId: s.organisationId,
        resourceTypeId: s.typeId,
        resourceId: s.resourceIds[i % RESOURCES]!,
        status: held ? ('held' as const) : ('confirmed' as const),
        expiresAt: held ? new Date(Date.now() + 3 * HOUR).toISOString() : null,
        startTime: new Date(at).toISOString(),
        endTime: new Date(at + HOUR / 2).toISOString(),
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
      };
    });
    console.log(`${rows.length} reservations, about ${perDay} a day on each resource`);
    for (let i = 0; i < rows.length; i += 500)
      await db.kysely
        .insertInto('reservations')
        .values(rows.slice(i, i + 500))
        .execute();
    // Written behind the service's back: record their length as a booking would.
    await db.kysely
      .updateTable('resourceTypes')
      .set({ longestReservationMinutes: 30 })
      .where('id', '=', s.typeId)
      .execute();
    if (db.dialect === 'postgres') await sql`analyze reservations`.execute(db.kysely);
  } finally {
    await db.close();
  }
}

async function measure(label: string, databaseUrl: string, service: Server): Promise<LoadRow> {
  const seeded = await seedCatalogue(service.base);
  await seedReservations(databaseUrl, seeded);
  // The tenth day, 00:00 to 24:00 UTC: busy hours, closed hours and holds.
  const day = seeded.start + 10 * 24 * HOUR;
  const query = `startTime=${new Date(day).toISOString()}&endTime=${new Date(day + 24 * HOUR).toISOString()}`;
  const row = await load({
    title: `${label}, ${RESERVATIONS.toLocaleString('en')} reservations: explain one resource for a day, 1 client`,
    server: service,
    path: `/api/resources/${seeded.resourceIds[3]}/availability/explain?${query}`,
    headers: seeded.headers,
    connections: 1,
    warmupSeconds: 2,
  });
  console.log(`${label}: p50 ${row.p50} ms (target at most ${TARGET_P50_MS} ms)`);
  return row;
}

const workdir = mkdtempSync(join(tmpdir(), 'bench-explain-'));
const floor = await startFloor();
const rows: LoadRow[] = [];
try {
  const floorRow = await load({
    title: 'floor: bare Fastify hello-world, 10 clients',
    server: floor,
    path: '/',
    connections: 10,
  });
  const sqliteUrl = `sqlite:${join(workdir, 'explain.db')}`;
  const sqlite = await startService({ DATABASE_URL: sqliteUrl }, join(workdir, 'sqlite.log'));
  try {
    rows.push(await measure('SQLite', sqliteUrl, sqlite));
  } finally {
    await stop(sqlite);
  }
  if (!process.env.BENCH_SKIP_PG) {
    await withPostgresDatabase('bench_explain', async (url) => {
      const postgres = await startService({ DATABASE_URL: url }, join(workdir, 'postgres.log'));
      try {
        rows.push(await measure('PostgreSQL', url, postgres));
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
