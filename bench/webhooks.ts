// Webhook delivery benchmark (issue 24), on SQLite and PostgreSQL, the service started as
// `npm start` starts it (development: the mail catcher runs and every booking is mailed
// too), a receiver on loopback in this process answering 204 at once:
// - latency: bookings at a fixed 200 per second for BENCH_SECONDS (autocannon in this
//   process), one endpoint subscribed to reservation.created; for each delivery, the time
//   from the event's occurredAt (the booking's transaction) to its arrival at the receiver.
//   The bookings' own latency under that load, and the floor's at the same rate, beside it.
// - drain: 10,000 events committed at once into the outbox (one INSERT ... SELECT, as if
//   10,000 bookings had just committed), then the time until the receiver has all 10,000.
// With BENCH_DEAD_NEIGHBOUR=1 (issue 49: one organisation's dead endpoints must not delay
// another's deliveries), a second organisation books every other booking of the same 200 a
// second, and its 20 endpoints, subscribed to the same event type, are on a TCP server that
// accepts and never answers (each attempt held for the 10 s timeout); the latency is the
// first organisation's, whose endpoint answers at once.
// Run: npm run bench -- webhooks
// (BENCH_SECONDS, default 10; PG_ADMIN_URL; BENCH_SKIP_PG=1 or BENCH_SKIP_SQLITE=1 to skip one;
// BENCH_DEAD_NEIGHBOUR=1 for the neighbour.)
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  api,
  BENCH_SECONDS,
  type Server,
  startFloor,
  startService,
  stop,
  withPostgresDatabase,
} from './harness.js';

const RATE = 200;
const DEAD_NEIGHBOUR = process.env.BENCH_DEAD_NEIGHBOUR === '1';
const DEAD_ENDPOINTS = 20;
const DRAIN_EVENTS = 10_000;
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/** A receiver that answers 204 at once and notes when each event arrived. */
async function startReceiver() {
  const arrivals: Array<{ at: number; body: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      arrivals.push({ at: Date.now(), body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP server that accepts every connection and never writes: every attempt to it times out. */
async function startDeadServer() {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** An organisation with a room of four lanes and an endpoint at each of `receiverUrls`. */
async function seed(base: string, receiverUrls: string[]) {
  const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-webhooks-${process.pid}-${Date.now()}-${receiverUrls.length}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  const organisation = await api<{ id: number }>(
    base,
    'POST',
    '/api/organisations',
    { name: 'Bench', timezone: 'UTC' },
    auth,
  );
  const type = await api<{ id: number }>(
    base,
    'POST',
    '/api/resource-types',
    { name: 'Room', bookingMode: 'POOL', minBookingDuration: 30 },
    auth,
  );
  await api(base, 'POST', '/api/resources', { name: 'Room', resourceTypeId: type.id, capacity: 4 }, auth);
  for (const url of receiverUrls)
    await api(
      base,
      'POST',
      `/api/organisations/${organisation.id}/webhooks`,
      { url, events: ['reservation.created'] },
      auth,
    );
  return { auth, organisationId: organisation.id, typeId: type.id };
}

/** Bookings of distinct 30-minute slots (four lanes a slot, all day) at `rate` a second. */
async function bookAtRate(
  server: Server,
  { auth, typeId }: { auth: Record<string, string>; typeId: number },
  rate: number,
) {
  const day0 = new Date();
  day0.setUTCHours(0, 0, 0, 0);
  const first = day0.getTime() + 3 * DAY;
  let n = 0;
  return autocannon({
    url: server.base,
    connections: Math.round((20 * rate) / RATE),
    overallRate: rate,
    duration: BENCH_SECONDS,
    requests: [
      {
        method: 'POST',
        path: '/api/reservations',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => {
          const slot = Math.floor(n++ / 4);
          const start = first + slot * 30 * MINUTE;
          return {
            ...request,
            body: JSON.stringify({
              resourceTypeId: typeId,
              startTime: new Date(start).toISOString(),
              endTime: new Date(start + 30 * MINUTE).toISOString(),
              customer: { name: 'Bench Booker', email: 'booker@example.test' },
            }),
          };
        },
      },
    ],
  });
}

async function until(done: () => boolean, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Commits DRAIN_EVENTS reservation.created events of the organisation in one statement. */
async function commitEvents(databaseUrl: string, organisationId: number) {
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    db.pragma('busy_timeout = 5000');
    db.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${DRAIN_EVENTS})
       insert into outbox_events (type, occurred_at, organisation_id, user_id, data)
       select 'reservation.created', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, null, json_object('id', 1000000 + i)
       from n`,
    ).run(organisationId);
    db.close();
    return;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(
    `insert into outbox_events (type, occurred_at, organisation_id, user_id, data)
     select 'reservation.created', now(), $1, null, json_build_object('id', 1000000 + g)::text
     from generate_series(1, ${DRAIN_EVENTS}) g`,
    [organisationId],
  );
  await client.end();
}

interface Result {
  database: string;
  delivered: number;
  latency: { p50: number; p99: number; max: number };
  bookings: { rps: number; p50: number; p99: number; non2xx: number };
  floor: { p50: number; p99: number };
  drain: { seconds: number; perSecond: number };
}

async function measure(database: string, databaseUrl: string, floor: Server): Promise<Result> {
  const receiver = await startReceiver();
  const dead = DEAD_NEIGHBOUR ? await startDeadServer() : null;
  const logFile = join(tmpdir(), `bench-webhooks-${process.pid}-${Date.now()}.log`);
  const service = await startService({ DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true' }, logFile);
  try {
    const measured = await seed(service.base, [receiver.url]);
    const neighbour = dead
      ? await seed(
          service.base,
          Array.from({ length: DEAD_ENDPOINTS }, (_, i) => `${dead.url}/dead/${i}`),
        )
      : null;
    const floorRun = await autocannon({
      url: floor.base,
      connections: 20,
      overallRate: RATE,
      duration: BENCH_SECONDS,
    });
    const [booked, ...neighbours] = await Promise.all([
      bookAtRate(service, measured, neighbour ? RATE / 2 : RATE),
      ...(neighbour ? [bookAtRate(service, neighbour, RATE / 2)] : []),
    ]);
    const expected = booked.requests.total - booked.non2xx;
    await until(() => receiver.arrivals.length >= expected, 30_000, `${expected} deliveries`);
    const latencies = receiver.arrivals
      .map(({ at, body }) => at - Date.parse((JSON.parse(body) as { occurredAt: string }).occurredAt))
      .sort((a, b) => a - b);

    receiver.arrivals.length = 0;
    const started = Date.now();
    await commitEvents(databaseUrl, measured.organisationId);
    await until(() => receiver.arrivals.length >= DRAIN_EVENTS, 120_000, `${DRAIN_EVENTS} drained`);
    const seconds = (Date.now() - started) / 1000;
    return {
      database,
      delivered: latencies.length,
      latency: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)! },
      bookings: {
        rps: Math.round(booked.requests.average + (neighbours[0]?.requests.average ?? 0)),
        p50: booked.latency.p50,
        p99: booked.latency.p99,
        non2xx: booked.non2xx,
      },
      floor: { p50: floorRun.latency.p50, p99: floorRun.latency.p99 },
      drain: { seconds, perSecond: Math.round(DRAIN_EVENTS / seconds) },
    };
  } finally {
    await stop(service);
    await receiver.close();
    await dead?.close();
  }
}

const floor = await startFloor();
const results: Result[] = [];
try {
  const file = join(tmpdir(), `bench-webhooks-${process.pid}.db`);
  if (!process.env.BENCH_SKIP_SQLITE) results.push(await measure('SQLite', `sqlite:${file}`, floor));
  if (!process.env.BENCH_SKIP_PG)
    results.push(await withPostgresDatabase('bench_webhooks', (url) => measure('PostgreSQL', url, floor)));
} finally {
  await stop(floor);
}
console.log(
  `Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}, ${RATE} bookings/s for ${BENCH_SECONDS} s${
    DEAD_NEIGHBOUR
      ? `, every other booking a neighbour's, whose ${DEAD_ENDPOINTS} endpoints never answer (bookings/s both; deliveries and latencies the measured organisation's)`
      : ''
  }\n`,
);
console.log(
  '| database | deliveries | commit to 2xx p50 / p99 / max ms | bookings/s | booking p50 / p99 ms | floor p50 / p99 ms at the same rate | 10,000 queued: seconds | drained per second |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.database} | ${r.delivered} | ${r.latency.p50} / ${r.latency.p99} / ${r.latency.max} | ${r.bookings.rps} | ${r.bookings.p50} / ${r.bookings.p99} | ${r.floor.p50} / ${r.floor.p99} | ${r.drain.seconds.toFixed(1)} | ${r.drain.perSecond} |`,
  );
