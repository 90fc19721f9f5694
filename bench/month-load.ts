// The month of reservations shared by bench/availability.ts and bench/explain.ts: an account, an
// organisation and a type (open 07:00-22:00 every day, 30-minute minimum, 10-minute buffer) with
// one parent of LANES capacity lanes, seeded through the HTTP API; then up to 10,000 hour-long
// reservations over DAYS days written straight into the service's database (a fifth of them
// holds, half live, half lapsed), as many bookings would leave them. A bench measures once the
// service has mailed their confirmations (`untilMailDrained`), as its outbox does for every booking.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import { api } from './harness.js';

export const LANES = 50;
export const DAYS = 31;
export const HOUR = 3_600_000;

export interface SeededMonth {
  headers: Record<string, string>;
  organisationId: number;
  typeId: number;
  /** The parent resource whose capacity the lanes are. */
  parentId: number;
  laneIds: number[];
  /** Midnight UTC two days after the seed: the month's first day. */
  start: number;
}

/** An account, an organisation, the type and its parent of 50 lanes, through the API. */
export async function seedCatalogue(base: string): Promise<SeededMonth> {
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
    parentId: parent.id,
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
 * Reservations `from` up to `count` in the 31 days, hour-long, lanes round-robin with each
 * layer two hours later, written into the service's database (a bench seeds in steps: 1,000,
 * then up to 10,000).
 */
export async function seedReservations(databaseUrl: string, s: SeededMonth, from: number, count: number) {
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
      // Every fifth a hold: half of them live, half lapsed but not yet marked by the job.
      rows.push({ ...seededReservation(s, s.laneIds[i % LANES]!, at, now), ...holdOf(i, Date.parse(now)) });
    }
    await writeSeeded(db, s.typeId, rows);
    if (db.dialect === 'postgres') await sql`analyze reservations`.execute(db.kysely);
  } finally {
    await db.close();
  }
}

/** An hour-long confirmed booking from `at` on `laneId`, as a seed writes it behind the service's back. */
export function seededReservation(
  s: { organisationId: number; typeId: number },
  laneId: number,
  at: number,
  now: string,
) {
  return {
    organisationId: s.organisationId,
    resourceTypeId: s.typeId,
    resourceId: laneId,
    status: 'confirmed' as 'confirmed' | 'held',
    expiresAt: null as string | null,
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
  };
}

/** Writes seeded rows in batches, then records their length on the type as a booking would. */
export async function writeSeeded(
  db: ReturnType<typeof createDatabase>,
  typeId: number,
  rows: ReturnType<typeof seededReservation>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await db.kysely
      .insertInto('reservations')
      .values(rows.slice(i, i + 500))
      .execute();
  await db.kysely
    .updateTable('resourceTypes')
    .set({ longestReservationMinutes: 60 })
    .where('id', '=', typeId)
    .execute();
}
