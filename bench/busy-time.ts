// Busy time benchmark (issue 26): type availability of 50 lanes (10 resources of 5 lanes,
// each managed by its own member and blocking on the manager's calendars), 31 days,
// 10,000 reservations in range, with 1,000 and then 10,000 busy events across the
// managers' calendars (a tenth of them outside the range, one in fifty a weekly series,
// one in fifty all-day), on SQLite and PostgreSQL, beside the bare Fastify floor. Every
// request asks a range one millisecond longer than the last, so each misses the answer
// cache: the uncached cost. Target: p50 at most 8 ms (SQLite) and 15 ms (PostgreSQL) at
// 10,000 events, and at most 5x from 1,000 to 10,000 events.
// Run: npm run bench -- busy-time (BENCH_SKIP_PG=1 to skip PostgreSQL; BENCH_PROFILE_DIR=<dir>:
// the service writes V8 CPU profiles there when it stops.)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import {
  api,
  type LoadRow,
  load,
  profiledEnv,
  type Server,
  startFloor,
  startService,
  stop,
  table,
  untilMailDrained,
  withPostgresDatabase,
} from './harness.js';
import { seededReservation, writeSeeded } from './month-load.js';

const RESOURCES = 10;
const LANES_EACH = 5;
const DAYS = 31;
const HOUR = 3_600_000;
const RESERVATIONS = 10_000;
const EVENT_COUNTS = [1_000, 10_000];

interface Seeded {
  headers: Record<string, string>;
  organisationId: number;
  typeId: number;
  laneIds: number[];
  managers: Array<{ id: number; calendarId: number }>;
  start: number;
}

async function register(base: string, name: string) {
  const r = await api<{ accessToken: string; user: { id: number } }>(base, 'POST', '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.test`,
    password: 'benchmark password',
    name,
  });
  return { headers: { authorization: `Bearer ${r.accessToken}` }, id: r.user.id };
}

/** The owner, ten managers (members), the type and its ten blocking resources, through the API. */
async function seedCatalogue(base: string): Promise<Seeded> {
  const owner = await register(base, 'Owner');
  const call = <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers = owner.headers,
  ) => api<T>(base, method, path, body, headers);
  const organisation = await call<{ id: number }>('POST', '/api/organisations', {
    name: 'Bench',
    timezone: 'Europe/Berlin',
  });
  const type = await call<{ id: number }>('POST', '/api/resource-types', {
    name: 'Consultants',
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
  const managers: Seeded['managers'] = [];
  const laneIds: number[] = [];
  for (let i = 0; i < RESOURCES; i++) {
    const manager = await register(base, `Manager ${i}`);
    await call('POST', `/api/organisations/${organisation.id}/users/assign`, {
      userId: manager.id,
      role: 'MEMBER',
    });
    await call('POST', `/api/organisations/${organisation.id}/invitation/accept`, undefined, manager.headers);
    const [calendar] = await call<Array<{ id: number }>>('GET', '/api/calendars', undefined, manager.headers);
    managers.push({ id: manager.id, calendarId: calendar!.id });
    const parent = await call<{ id: number }>('POST', '/api/resources', {
      name: `Consultant ${i}`,
      resourceTypeId: type.id,
      capacity: LANES_EACH,
      managedById: manager.id,
      blockOnManagerCalendars: true,
    });
    const lanes = await call<Array<{ id: number; parentResourceId: number | null }>>(
      'GET',
      `/api/resources?resourceTypeId=${type.id}`,
    );
    laneIds.push(...lanes.filter((lane) => lane.parentResourceId === parent.id).map((lane) => lane.id));
  }
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() + 2);
  return {
    headers: owner.headers,
    organisationId: organisation.id,
    typeId: type.id,
    laneIds,
    managers,
    start: start.getTime(),
  };
}

/** 10,000 confirmed hour-long reservations in the 31 days, lanes round-robin, written into the database. */
async function seedReservations(databaseUrl: string, s: Seeded) {
  const db = createDatabase(databaseUrl);
  try {
    const now = new Date().toISOString();
    const lanes = s.laneIds.length;
    const rows = [];
    for (let i = 0; i < RESERVATIONS; i++) {
      const slot = Math.floor(i / lanes);
      const at = s.start + (slot % DAYS) * 24 * HOUR + (8 + Math.floor(slot / DAYS) * 2) * HOUR;
      rows.push(seededReservation(s, s.laneIds[i % lanes]!, at, now));
    }
    await writeSeeded(db, s.typeId, rows);
  } finally {
    await db.close();
  }
}

/**
 * Busy events `from`..`count` across the managers: 45-minute meetings at quarter hours
 * through the 31 days (a tenth of them in the month before, outside the range), one in
 * fifty an all-day event, one in fifty a weekly series of four (its end computed as the
 * events service stores it: the last occurrence's end).
 */
async function seedEvents(databaseUrl: string, s: Seeded, from: number, count: number) {
  const db = createDatabase(databaseUrl);
  try {
    const now = new Date().toISOString();
    const rows = [];
    for (let i = from; i < count; i++) {
      const manager = s.managers[i % s.managers.length]!;
      const outside = i % 10 === 9;
      const day = (Math.floor(i / s.managers.length) * 7) % DAYS;
      const minute = (Math.floor(i / (s.managers.length * DAYS)) * 97) % (14 * 60);
      const at = s.start + (outside ? -DAYS : 0) * 24 * HOUR + day * 24 * HOUR + 7 * HOUR + minute * 60_000;
      const allDay = i % 50 === 7;
      const weekly = i % 50 === 3;
      const startMs = allDay ? s.start + day * 24 * HOUR - HOUR : at;
      const endMs = allDay ? startMs + 24 * HOUR : at + 45 * 60_000;
      rows.push({
        calendarId: manager.calendarId,
        title: `Meeting ${i}`,
        description: null,
        location: null,
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(endMs).toISOString(),
        allDay,
        // All-day events start and end at local midnight of their zone (Berlin in winter: 23:00Z).
        timezone: allDay ? 'Etc/GMT-1' : 'Europe/Berlin',
        recurrence: weekly ? JSON.stringify(['RRULE:FREQ=WEEKLY;COUNT=4']) : null,
        reminders: '[]',
        occursUntil: new Date(weekly ? endMs + 21 * 24 * HOUR + HOUR : endMs).toISOString(),
        createdAt: now,
        updatedAt: now,
      });
    }
    for (let i = 0; i < rows.length; i += 500)
      await db.kysely
        .insertInto('events')
        .values(rows.slice(i, i + 500))
        .execute();
    if (db.dialect === 'postgres') await sql`analyze`.execute(db.kysely);
  } finally {
    await db.close();
  }
}

async function measure(
  database: string,
  databaseUrl: string,
  service: Server,
  floor: Server,
): Promise<LoadRow[]> {
  const s = await seedCatalogue(service.base);
  await seedReservations(databaseUrl, s);
  // Their confirmations are mailed from the outbox; measured once that is done.
  await untilMailDrained(databaseUrl, database);
  const from = new Date(s.start).toISOString();
  const toMs = s.start + DAYS * 24 * HOUR;
  let n = 0;
  // Each request a range a millisecond longer: a new cache key, so every answer is computed.
  const uncached = (): autocannon.Request[] => [
    {
      method: 'GET',
      setupRequest: (request) => {
        n += 1;
        request.path = `/api/resource-types/${s.typeId}/availability?from=${from}&to=${new Date(toMs + n).toISOString()}`;
        return request;
      },
    },
  ];
  const rows: LoadRow[] = [];
  const path = `/api/resource-types/${s.typeId}/availability?from=${from}&to=${new Date(toMs).toISOString()}`;
  rows.push(
    await load({
      title: `${database}, 10,000 reservations, 0 busy events: type availability, uncached, 1 client`,
      server: service,
      path,
      headers: s.headers,
      connections: 1,
      requests: uncached(),
    }),
  );
  let seeded = 0;
  for (const count of EVENT_COUNTS) {
    await seedEvents(databaseUrl, s, seeded, count);
    await untilMailDrained(databaseUrl, database);
    seeded = count;
    rows.push(
      await load({
        title: `${database}, 10,000 reservations, ${count.toLocaleString('en')} busy events: type availability, uncached, 1 client`,
        server: service,
        path,
        headers: s.headers,
        connections: 1,
        requests: uncached(),
      }),
    );
  }
  rows.push(
    await load({
      title: 'floor: bare Fastify hello-world, 10 clients',
      server: floor,
      path: '/',
      connections: 10,
    }),
  );
  return rows;
}

const workdir = mkdtempSync(join(tmpdir(), 'bench-busy-time-'));
const floor = await startFloor();
const runs: LoadRow[][] = [];
try {
  const sqliteUrl = `sqlite:${join(workdir, 'busy-time.db')}`;
  const sqlite = await startService(
    { DATABASE_URL: sqliteUrl, ...profiledEnv('sqlite') },
    join(workdir, 'sqlite.log'),
  );
  try {
    runs.push(await measure('SQLite', sqliteUrl, sqlite, floor));
  } finally {
    await stop(sqlite);
  }
  if (!process.env.BENCH_SKIP_PG) {
    await withPostgresDatabase('bench_busy_time', async (url) => {
      const postgres = await startService(
        { DATABASE_URL: url, ...profiledEnv('postgres') },
        join(workdir, 'postgres.log'),
      );
      try {
        runs.push(await measure('PostgreSQL', url, postgres, floor));
      } finally {
        await stop(postgres);
      }
    });
  }
  console.log(`Busy time (issue 26): Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`);
  for (const rows of runs) console.log(`${table(rows, rows[rows.length - 1]!.rps)}\n`);
} finally {
  await stop(floor);
  rmSync(workdir, { recursive: true, force: true });
}
