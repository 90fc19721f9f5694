// Alternatives benchmark (issue 22): how long a refused booking takes to answer with its
// alternatives when the requested day is full. A POOL type of LANES lanes, open 07:00-22:00
// UTC every day, hour-long bookings; the requested day is booked solid on every lane, the
// next 13 days every other hour, so the nearest alternatives are a day away and the engine
// reads past the full day. Measured as a dry run of POST /api/reservations (200,
// wouldSucceed false, five alternatives) and as the real refusal (409 SLOT_UNAVAILABLE with
// alternatives), 1 client for p50/p99, beside the bare Fastify floor of the same run; on
// SQLite and PostgreSQL, the service started as `npm start` starts it.
// Run: npm run bench -- alternatives (BENCH_SECONDS; BENCH_SKIP_PG=1 to skip PostgreSQL.)
import { api, load, onBothDatabases } from './harness.js';

const LANES = 10;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OPEN_HOUR = 7;
const CLOSE_HOUR = 22;
const customer = { name: 'Bench Booker', email: 'booker@example.test' };

async function seed(base: string) {
  const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-alternatives-${process.pid}-${Date.now()}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  await api(base, 'POST', '/api/organisations', { name: 'Bench', timezone: 'UTC' }, auth);
  const type = await api<{ id: number }>(
    base,
    'POST',
    '/api/resource-types',
    {
      name: 'Rooms',
      bookingMode: 'POOL',
      minBookingDuration: 60,
      schedulePolicy: {
        operatingHours: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
          dayOfWeek,
          openTime: `${String(OPEN_HOUR).padStart(2, '0')}:00`,
          closeTime: `${CLOSE_HOUR}:00`,
        })),
      },
    },
    auth,
  );
  await api(base, 'POST', '/api/resources', { name: 'Room', resourceTypeId: type.id, capacity: LANES }, auth);
  const day0 = new Date();
  day0.setUTCHours(0, 0, 0, 0);
  const fullDay = day0.getTime() + 3 * DAY;
  const book = (start: number) =>
    api(
      base,
      'POST',
      '/api/reservations',
      {
        resourceTypeId: type.id,
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + HOUR).toISOString(),
        customer,
      },
      auth,
    );
  const hours = Array.from({ length: CLOSE_HOUR - OPEN_HOUR }, (_, i) => OPEN_HOUR + i);
  // The full day: every hour on every lane.
  for (const hour of hours) {
    await Promise.all(Array.from({ length: LANES }, () => book(fullDay + hour * HOUR)));
  }
  // The 13 days after it: every lane every other hour.
  for (let day = 1; day <= 13; day++) {
    for (const hour of hours.filter((h) => h % 2 === 1)) {
      await Promise.all(Array.from({ length: LANES }, () => book(fullDay + day * DAY + hour * HOUR)));
    }
  }
  const noon = fullDay + 12 * HOUR;
  return {
    auth,
    body: JSON.stringify({
      resourceTypeId: type.id,
      startTime: new Date(noon).toISOString(),
      endTime: new Date(noon + HOUR).toISOString(),
      customer,
    }),
  };
}

await onBothDatabases('alternatives', async (database, service, floor) => {
  const { auth, body } = await seed(service.base);
  const probe = await fetch(`${service.base}/api/reservations?dryRun=true`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body,
  });
  const verdict = (await probe.json()) as { wouldSucceed: boolean; error?: { alternatives?: unknown[] } };
  if (verdict.wouldSucceed || verdict.error?.alternatives?.length !== 5)
    throw new Error(`the full day should refuse with 5 alternatives: ${JSON.stringify(verdict)}`);
  const common = { server: service, method: 'POST' as const, headers: auth, body, connections: 1 };
  return [
    await load({
      ...common,
      title: `${database}: full day, dry run with 5 alternatives, 1 client`,
      path: '/api/reservations?dryRun=true',
    }),
    await load({
      ...common,
      title: `${database}: full day, 409 SLOT_UNAVAILABLE with 5 alternatives, 1 client`,
      path: '/api/reservations',
      accept: (status) => status === 409,
    }),
    await load({
      title: `${database} run: floor (Fastify hello-world), 1 client`,
      server: floor,
      path: '/',
      connections: 1,
    }),
  ];
});
