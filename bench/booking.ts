// Booking benchmark: pool bookings per second with BENCH_CONNECTIONS (default 20) clients,
// on SQLite and on PostgreSQL, beside the bare Fastify floor in the same run. The service is
// started as `npm start` starts it; everything is seeded through its HTTP API. A POOL type
// (opening hours 06:00-22:00 every day, 30-minute bookings, 15-minute buffer) with one parent
// of LANES lanes; two cases:
// - distinct slots: every request asks for a slot nobody asked for (lane 1 takes them all,
//   each exactly one buffer after the previous one on that lane);
// - filling the pool: each slot is asked LANES times in a row, so later requests of a slot
//   find the first lanes taken (and, under load, race for the same lanes);
// - hold then confirm: a hold of a new slot, then its confirm (issue 22), counted per request
//   (pairs per second are half the requests per second).
// Run: npm run bench -- booking
// (BENCH_SECONDS, BENCH_CONNECTIONS; PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_SKIP_PG=1 to skip PostgreSQL.)
import type autocannon from 'autocannon';
import { api, BENCH_CONNECTIONS, load, onBothDatabases } from './harness.js';

const LANES = 4;
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
/** 30-minute slots every 45 minutes from 06:00 to 22:00 UTC: the 15 minutes between are the buffer. */
const SLOT_MINUTES = 30;
const STEP_MINUTES = 45;
const SLOTS_PER_DAY = Math.floor((22 * 60 - 6 * 60 - SLOT_MINUTES) / STEP_MINUTES) + 1;
const customer = { name: 'Bench Booker', email: 'booker@example.test' };

/** Midnight UTC three days from now: every slot from there on is in the future. */
function firstDay(): number {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime() + 3 * DAY;
}

async function seed(base: string) {
  const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-booking-${process.pid}-${Date.now()}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  await api(base, 'POST', '/api/organisations', { name: 'Bench', timezone: 'UTC' }, auth);
  const hours = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    openTime: '06:00',
    closeTime: '22:00',
  }));
  const newType = (name: string) =>
    api<{ id: number }>(
      base,
      'POST',
      '/api/resource-types',
      {
        name,
        bookingMode: 'POOL',
        minBookingDuration: SLOT_MINUTES,
        bufferTime: STEP_MINUTES - SLOT_MINUTES,
        schedulePolicy: { operatingHours: hours },
      },
      auth,
    );
  const types: number[] = [];
  for (const name of ['Distinct', 'Filling', 'Held']) {
    const type = await newType(name);
    await api(base, 'POST', '/api/resources', { name, resourceTypeId: type.id, capacity: LANES }, auth);
    types.push(type.id);
  }
  return { auth, distinctType: types[0]!, fillingType: types[1]!, holdType: types[2]! };
}

/** One POST per request, the nth asking for `slotOf(n)`, counted across warm-up and run. */
function bookings(
  auth: Record<string, string>,
  resourceTypeId: number,
  slotOf: (n: number) => number,
): autocannon.Request[] {
  const day0 = firstDay();
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/api/reservations',
      headers: { ...auth, 'content-type': 'application/json' },
      setupRequest: (request) => {
        const slot = slotOf(n++);
        const start =
          day0 +
          Math.floor(slot / SLOTS_PER_DAY) * DAY +
          (6 * 60 + (slot % SLOTS_PER_DAY) * STEP_MINUTES) * MINUTE;
        return {
          ...request,
          body: JSON.stringify({
            resourceTypeId,
            startTime: new Date(start).toISOString(),
            endTime: new Date(start + SLOT_MINUTES * MINUTE).toISOString(),
            customer,
          }),
        };
      },
    },
  ];
}

/**
 * Hold then confirm, each client in turn: a hold of the nth slot, then the confirm of the
 * hold it answered. Two requests per pair.
 */
function holdsConfirmed(
  auth: Record<string, string>,
  resourceTypeId: number,
  slotOf: (n: number) => number,
): autocannon.Request[] {
  const [hold] = bookings(auth, resourceTypeId, slotOf);
  return [
    {
      ...hold!,
      path: '/api/reservations/holds',
      onResponse: (_status, body, context) => {
        (context as { holdId?: number }).holdId = (JSON.parse(body) as { id: number }).id;
      },
    },
    {
      method: 'POST',
      headers: auth,
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/reservations/${(context as { holdId?: number }).holdId}/confirm`,
      }),
    },
  ];
}

await onBothDatabases(
  'booking',
  async (database, service, floor) => {
    const { auth, distinctType, fillingType, holdType } = await seed(service.base);
    return [
      await load({
        title: `${database}: pool booking, distinct slots`,
        server: service,
        path: '/api/reservations',
        requests: bookings(auth, distinctType, (n) => n),
      }),
      await load({
        title: `${database}: pool booking, filling ${LANES} lanes per slot`,
        server: service,
        path: '/api/reservations',
        requests: bookings(auth, fillingType, (n) => Math.floor(n / LANES)),
      }),
      await load({
        title: `${database}: hold then confirm (2 requests a pair)`,
        server: service,
        path: '/api/reservations/holds',
        requests: holdsConfirmed(auth, holdType, (n) => n),
      }),
      await load({ title: `${database} run: floor (Fastify hello-world)`, server: floor, path: '/' }),
    ];
  },
  `connections ${BENCH_CONNECTIONS}, `,
);
