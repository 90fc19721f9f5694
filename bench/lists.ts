// Lists benchmark (issue 14): GET /api/resources answering 140 records (7 parents
// with operating hours, each followed by its 19 capacity lanes), the reservations
// list (a page of 140) and the tasks list (a page of 140), on SQLite and on
// PostgreSQL, each case right after the bare Fastify floor under the same load. The service
// runs as `npm start` runs it, seeded through its own HTTP API.
// Run: npm run bench -- lists (PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_SKIP_PG=1 to skip PostgreSQL).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  api,
  type LoadRow,
  load,
  loadBesideFloor,
  type Server,
  startFloor,
  startService,
  stop,
  table,
  withPostgresDatabase,
} from './harness.js';

const RECORDS = 140;
const PARENTS = 7;
const LANES_PER_PARENT = RECORDS / PARENTS - 1;
const HOUR = 3_600_000;

const allWeek = (openTime: string, closeTime: string) =>
  [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, openTime, closeTime }));

/** An account with an organisation holding the three lists; answers the bearer header. */
async function seed(base: string): Promise<{ headers: Record<string, string>; typeId: number }> {
  const registered = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const headers = { authorization: `Bearer ${registered.accessToken}` };
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    api<T>(base, method, path, body, headers);
  await call('POST', '/api/organisations', { name: 'Bench', timezone: 'Europe/Berlin' });
  const newType = (name: string) =>
    call<{ id: number }>('POST', '/api/resource-types', {
      name,
      bookingMode: 'BOTH',
      minBookingDuration: 30,
      bufferTime: 0,
      schedulePolicy: { operatingHours: allWeek('00:00', '24:00') },
    });
  const type = await newType('Rooms');
  for (let i = 1; i <= PARENTS; i++) {
    await call('POST', '/api/resources', {
      name: `Room ${i}`,
      description: `Room ${i}, second floor`,
      resourceTypeId: type.id,
      capacity: LANES_PER_PARENT,
      operatingHoursOverrides: allWeek('07:00', '22:00'),
    });
  }
  const single = await call<{ id: number }>('POST', '/api/resources', {
    name: 'Booth',
    resourceTypeId: (await newType('Booths')).id,
    capacity: 1,
  });
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  const first = start.getTime() + 2 * 24 * HOUR;
  for (let i = 0; i < RECORDS; i++) {
    await call('POST', '/api/reservations', {
      resourceId: single.id,
      startTime: new Date(first + i * HOUR).toISOString(),
      endTime: new Date(first + (i + 1) * HOUR).toISOString(),
      customer: { name: `Customer ${i}`, email: `customer${i}@example.test`, phone: '+49 30 1234567' },
      notes: 'Window seat, please',
    });
    await call('POST', '/api/tasks', {
      title: `Task ${i}`,
      notes: 'Call the supplier about the order',
      priority: 'high',
      dueAt: new Date(first + i * HOUR).toISOString(),
    });
  }
  return { headers, typeId: type.id };
}

async function measure(label: string, service: Server): Promise<LoadRow[]> {
  const { headers, typeId } = await seed(service.base);
  const resources = await api<unknown[]>(
    service.base,
    'GET',
    `/api/resources?resourceTypeId=${typeId}`,
    undefined,
    headers,
  );
  if (resources.length !== RECORDS) throw new Error(`resource list has ${resources.length} records`);
  const rows: LoadRow[] = [];
  const cases: Array<[string, string]> = [
    [`${label}: GET /api/resources (${RECORDS} records)`, `/api/resources?resourceTypeId=${typeId}`],
    [`${label}: GET /api/reservations (page of ${RECORDS})`, `/api/reservations?limit=${RECORDS}`],
    [`${label}: GET /api/tasks (page of ${RECORDS})`, `/api/tasks?limit=${RECORDS}`],
  ];
  for (const [title, path] of cases) {
    const page = await api<{ items?: unknown[] }>(service.base, 'GET', path, undefined, headers);
    if (page.items && page.items.length !== RECORDS)
      throw new Error(`${path} has ${page.items.length} items`);
    rows.push(await loadBesideFloor(floor, { title, server: service, path, headers }));
  }
  return rows;
}

const workdir = mkdtempSync(join(tmpdir(), 'bench-lists-'));
const floor = await startFloor();
const rows: LoadRow[] = [];
try {
  const floorRow = await load({ title: 'floor: bare Fastify hello-world', server: floor, path: '/' });

  const sqlite = await startService(
    { DATABASE_URL: `sqlite:${join(workdir, 'lists.db')}` },
    join(workdir, 'sqlite.log'),
  );
  try {
    rows.push(...(await measure('SQLite', sqlite)));
  } finally {
    await stop(sqlite);
  }

  if (!process.env.BENCH_SKIP_PG) {
    await withPostgresDatabase('bench_lists', async (url) => {
      const postgres = await startService({ DATABASE_URL: url }, join(workdir, 'postgres.log'));
      try {
        rows.push(...(await measure('PostgreSQL', postgres)));
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
