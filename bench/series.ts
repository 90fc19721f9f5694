// Series and waitlist benchmark (issue 23). 1) A 52-occurrence weekly series booked in one
// request (POST /api/reservations with recurrence: every occurrence read and inserted in one
// transaction), each request at a new time; target p50 <= 50 ms on SQLite, <= 100 ms on
// PostgreSQL. 2) A cancel whose time has a waiting entry against a plain cancel: offers are
// made by a consumer of the outbox after the cancel commits, so the cancel itself should
// cost the same (target: at most 2 ms p50 more). Sequential requests from one client,
// timed here (p50/p99 of N requests), beside the bare Fastify floor of the same run; the
// service started as `npm start` starts it, on SQLite and PostgreSQL.
// Run: npm run bench -- series (BENCH_SERIES_N, BENCH_CANCEL_N; BENCH_SKIP_PG=1 to skip PostgreSQL.)
import { api, type LoadRow, load, onBothDatabases, type Server } from './harness.js';

const SERIES_N = Number(process.env.BENCH_SERIES_N ?? 60);
const CANCEL_N = Number(process.env.BENCH_CANCEL_N ?? 300);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const customer = { name: 'Bench Booker', email: 'booker@example.test' };

async function owner(base: string) {
  const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-series-${process.pid}-${Date.now()}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  await api(base, 'POST', '/api/organisations', { name: 'Bench', timezone: 'Europe/Berlin' }, auth);
  return auth;
}

async function room(base: string, auth: Record<string, string>, type: Record<string, unknown>) {
  const created = await api<{ id: number }>(
    base,
    'POST',
    '/api/resource-types',
    { name: `Type ${Math.random()}`, minBookingDuration: 5, ...type },
    auth,
  );
  return api<{ id: number }>(
    base,
    'POST',
    '/api/resources',
    { name: 'Room', resourceTypeId: created.id },
    auth,
  );
}

/** Times `n` sequential calls of `request(i)`; answers a row (p50, p99 in ms, rate). */
async function timed(title: string, n: number, request: (i: number) => Promise<Response>, expect: number) {
  const ms: number[] = [];
  const began = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const response = await request(i);
    const body = await response.text();
    ms.push(performance.now() - t0);
    if (response.status !== expect) throw new Error(`${title}: ${response.status} ${body.slice(0, 300)}`);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
  return {
    title,
    rps: Math.round((n / (performance.now() - began)) * 1000),
    p50: at(0.5),
    p99: at(0.99),
    serverCpuUs: null,
    requests: n,
  } satisfies LoadRow;
}

const post = (service: Server, auth: Record<string, string>, path: string, body?: unknown) =>
  fetch(`${service.base}${path}`, {
    method: 'POST',
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

await onBothDatabases('series', async (database, service, floor) => {
  const auth = await owner(service.base);
  const day0 = new Date();
  day0.setUTCHours(0, 0, 0, 0);
  const base = day0.getTime() + 2 * DAY;

  // 1) Weekly series of 52, each request 5 minutes later than the last (no two overlap).
  const weekly = await room(service.base, auth, { recurringEnabled: true });
  const series = (i: number) =>
    post(service, auth, '/api/reservations', {
      resourceId: weekly.id,
      customer,
      startTime: new Date(base + i * 5 * MINUTE).toISOString(),
      endTime: new Date(base + (i * 5 + 5) * MINUTE).toISOString(),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=52'],
    });
  await timed('warm-up', 5, (i) => series(1000 + i), 201);
  const seriesRow = await timed(`${database}: 52-occurrence weekly series, 1 client`, SERIES_N, series, 201);

  // 2) Cancels: a plain type, and a waitlisted one where each cancelled time has an entry waiting.
  const plain = await room(service.base, auth, {});
  const listed = await room(service.base, auth, { waitlistEnabled: true });
  const bookAll = async (resourceId: number, withEntry: boolean) => {
    const ids: number[] = [];
    for (let i = 0; i < CANCEL_N + 5; i++) {
      const slot = {
        resourceId,
        customer,
        startTime: new Date(base + DAY + i * 5 * MINUTE).toISOString(),
        endTime: new Date(base + DAY + (i * 5 + 5) * MINUTE).toISOString(),
      };
      ids.push((await api<{ id: number }>(service.base, 'POST', '/api/reservations', slot, auth)).id);
      if (withEntry)
        await api(
          service.base,
          'POST',
          '/api/reservations/waitlist',
          { ...slot, customer: { ...customer, email: `w${i}@example.test` } },
          auth,
        );
    }
    return ids;
  };
  const plainIds = await bookAll(plain.id, false);
  const listedIds = await bookAll(listed.id, true);
  const cancel = (ids: number[]) => (i: number) => post(service, auth, `/api/reservations/${ids[i]}/cancel`);
  await timed('warm-up', 5, (i) => cancel(plainIds)(CANCEL_N + i), 200);
  await timed('warm-up', 5, (i) => cancel(listedIds)(CANCEL_N + i), 200);
  const plainRow = await timed(
    `${database}: cancel, nobody waiting, 1 client`,
    CANCEL_N,
    cancel(plainIds),
    200,
  );
  const offerRow = await timed(
    `${database}: cancel of a time with a waiting entry (offer follows from the outbox), 1 client`,
    CANCEL_N,
    cancel(listedIds),
    200,
  );
  // The offers the cancels freed: made by the consumer after the cancels, not in them.
  const deadline = Date.now() + 60_000;
  let offered = 0;
  while (Date.now() < deadline) {
    const list = await api<{ items: unknown[] }>(
      service.base,
      'GET',
      `/api/reservations/waitlist?status=offered&limit=200`,
      undefined,
      auth,
    );
    offered = list.items.length;
    if (offered >= Math.min(200, CANCEL_N)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.log(`${database}: offers made after the cancels (first 200 listed): ${offered}`);
  return [
    seriesRow,
    plainRow,
    offerRow,
    await load({
      title: `${database} run: floor (Fastify hello-world), 1 client`,
      server: floor,
      path: '/',
      connections: 1,
    }),
  ];
});
