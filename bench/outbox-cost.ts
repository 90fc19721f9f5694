// What the event outbox costs a booking (issue 24: at most 10% of its throughput). The same
// head three times, on the same kind of database, in the same run: as `npm start` runs it; with
// the events written but its consumers' poll off (OUTBOX_POLL_MS=0: what the writing costs
// apart from the reading); and without the outbox (its triggers dropped after the migrations,
// poll off). Every booking's confirmation mail is sent to the mail catcher in a process of its
// own. Pool booking with distinct slots, rounds rotating between them, beside the Fastify floor.
// Run: npm run bench -- outbox-cost
// (BENCH_ROUNDS, default 3; BENCH_SECONDS, default 6; BENCH_SKIP_PG=1 or BENCH_SKIP_SQLITE=1 to skip one.)
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookings, seed } from './booking-load.js';
import {
  BENCH_CONNECTIONS,
  BENCH_ROUNDS,
  cpuUs,
  freePort,
  type LoadRow,
  load,
  median,
  onDatabase,
  postgresCpuUs,
  profiledEnv,
  requestThreadCpuUs,
  type Server,
  startFloor,
  startMailCatcher,
  startService,
  stop,
  table,
  untilMailDrained,
  vacuum,
  withPostgresDatabase,
} from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Slots each round may use: more than a round books, so no two rounds ask the same time. */
const SLOTS_PER_ROUND = 20_000;

/** Drops every outbox trigger of the database (names `outbox_...`, as its migrations make them). */
function dropOutboxTriggers(databaseUrl: string): Promise<number> {
  return onDatabase(
    databaseUrl,
    (db) => {
      const names = db
        .prepare(
          "select name from sqlite_master where type = 'trigger' and name like 'outbox\\_%' escape '\\'",
        )
        .pluck()
        .all() as string[];
      for (const name of names) db.exec(`drop trigger "${name}"`);
      return names.length;
    },
    async (client) => {
      const { rows } = await client.query<{ trigger: string; on: string }>(
        `select t.tgname as trigger, c.relname as on from pg_trigger t join pg_class c on c.oid = t.tgrelid
         where not t.tgisinternal and t.tgname like 'outbox\\_%'`,
      );
      for (const row of rows) await client.query(`drop trigger "${row.trigger}" on "${row.on}"`);
      return rows.length;
    },
  );
}

interface Contender {
  name: string;
  variant: Variant;
  databaseUrl: string;
  service: Server;
  auth: Record<string, string>;
  typeId: number;
  rounds: number;
}

type Variant = 'full' | 'written only' | 'none';

async function contender(name: string, databaseUrl: string, logFile: string, variant: Variant) {
  // As `npm start` runs it, each booking's confirmation mail goes to an SMTP server, here the
  // catcher in a process of its own (as in a deployment). The others send none: their SMTP
  // port refuses, and a drain stops at its first refusal (the variant without poll still
  // tries once a minute).
  const env = {
    DATABASE_URL: databaseUrl,
    SMTP_URL: variant === 'full' ? catcher.smtpUrl : `smtp://127.0.0.1:${await freePort()}`,
  };
  if (variant === 'none') {
    // Started once so that the migrations run, then without the triggers they made.
    await stop(await startService(env, logFile));
    const dropped = await dropOutboxTriggers(databaseUrl);
    if (dropped === 0) throw new Error(`${name}: no outbox trigger to drop`);
  }
  const service = await startService(
    {
      ...(variant === 'full' ? env : { ...env, OUTBOX_POLL_MS: '0' }),
      ...profiledEnv(name.replaceAll(' ', '-')),
    },
    logFile,
  );
  const { auth, distinctType } = await seed(service.base);
  return { name, variant, databaseUrl, service, auth, typeId: distinctType, rounds: 0 } satisfies Contender;
}

/** A round's load, and its CPU a booking: the service's and database's, the request thread's, the catcher's. */
type Measured = LoadRow & { cpuPerBooking: number; requestThreadUs: number; catcherUs: number };

/** The service's CPU (µs) and, on PostgreSQL, the database's. */
const cpuNow = (c: Contender, postgres: boolean) =>
  (cpuUs(c.service) ?? 0) + (postgres ? (postgresCpuUs() ?? 0) : 0);

/**
 * One round of pool booking. With the outbox, it ends when every confirmation mail of its
 * bookings is sent, so that a round's mail is counted in its CPU (`cpuPerBooking`, service and
 * database, from its start until then) and never runs into the next round.
 */
async function round(database: string, c: Contender): Promise<Measured> {
  const offset = c.rounds++ * SLOTS_PER_ROUND;
  const postgres = database === 'PostgreSQL';
  // The dead row versions of earlier rounds (the sequencer leaves one an event) would make
  // every later round dearer, whatever its contender: vacuumed outside the measure.
  if (postgres) await vacuum(c.databaseUrl);
  const before = cpuNow(c, postgres);
  const requestThreadBefore = requestThreadCpuUs(c.service) ?? 0;
  const catcherBefore = cpuUs(catcher) ?? 0;
  const row = await load({
    title: `${database}: pool booking, ${c.name}`,
    server: c.service,
    path: '/api/reservations',
    seconds: SECONDS,
    // Every contender had a round before it is measured: no warm-up whose mail would count here.
    warmupSeconds: 0,
    requests: bookings(c.auth, c.typeId, (n) => offset + n),
    postgres,
  });
  if (c.variant === 'full') {
    await untilMailDrained(c.databaseUrl, c.name);
  }
  return {
    ...row,
    cpuPerBooking: Math.round((cpuNow(c, postgres) - before) / row.requests),
    requestThreadUs: Math.round(((requestThreadCpuUs(c.service) ?? 0) - requestThreadBefore) / row.requests),
    catcherUs: Math.round(((cpuUs(catcher) ?? 0) - catcherBefore) / row.requests),
  };
}

async function compare(database: string, urls: [string, string, string], floor: Server): Promise<string> {
  const logs = urls.map((_, i) => join(tmpdir(), `bench-outbox-cost-${process.pid}-${i}.log`));
  const withOutbox = await contender('with the outbox', urls[0], logs[0]!, 'full');
  const written = await contender('events written, poll off', urls[1], logs[1]!, 'written only');
  const without = await contender('without the outbox', urls[2], logs[2]!, 'none');
  const all = [withOutbox, written, without];
  try {
    // A round each before measuring: a fresh service's and database's first seconds are slower
    // (the JIT, the planner's first statistics), by more than what is measured here.
    for (const c of all) await round(database, c);
    const rows: Measured[] = [];
    for (let r = 0; r < BENCH_ROUNDS; r++) {
      // Rotating, so that a drift of the machine falls on all alike.
      for (let i = 0; i < all.length; i++) rows.push(await round(database, all[(r + i) % all.length]!));
    }
    const floorRow = await load({
      title: `${database} run: floor (Fastify hello-world)`,
      server: floor,
      path: '/',
    });
    const of = (c: Contender) => rows.filter((row) => row.title.endsWith(c.name));
    const rps = (c: Contender) => median(of(c).map((row) => row.rps));
    const cpu = (c: Contender) => median(of(c).map((row) => row.cpuPerBooking));
    const requestThread = (c: Contender) => median(of(c).map((row) => row.requestThreadUs));
    const catcherCpu = (c: Contender) => median(of(c).map((row) => row.catcherUs));
    const cost = (c: Contender) => `${((1 - rps(c) / rps(without)) * 100).toFixed(1)}%`;
    return (
      `${table([...rows, floorRow], floorRow.rps)}\n\n` +
      `${database}: median ${rps(withOutbox)}/s with the outbox, ${rps(written)}/s with its events ` +
      `written and its poll off, ${rps(without)}/s without: it costs ${cost(withOutbox)} of throughput ` +
      `(writing alone ${cost(written)}); CPU per booking (service and database, its mail sent) ${cpu(withOutbox)} / ` +
      `${cpu(written)} / ${cpu(without)} µs, of it the request thread's ${requestThread(withOutbox)} / ` +
      `${requestThread(written)} / ${requestThread(without)} µs; the mail catcher's, on the same two cores ` +
      `(a deployment's SMTP server has its own), ${catcherCpu(withOutbox)} µs a booking with the outbox`
    );
  } finally {
    for (const c of all) await stop(c.service);
    for (const log of logs) rmSync(log, { force: true });
  }
}

const floor = await startFloor();
const catcher = await startMailCatcher();
const reports: string[] = [];
try {
  const files = [0, 1, 2].map((i) => join(tmpdir(), `bench-outbox-cost-${process.pid}-${i}.db`));
  try {
    const [a, b, c] = files.map((file) => `sqlite:${file}`) as [string, string, string];
    if (!process.env.BENCH_SKIP_SQLITE) reports.push(await compare('SQLite', [a, b, c], floor));
  } finally {
    for (const file of files)
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
  if (!process.env.BENCH_SKIP_PG) {
    await withPostgresDatabase('bench_outbox_with', (a) =>
      withPostgresDatabase('bench_outbox_written', (b) =>
        withPostgresDatabase('bench_outbox_without', async (c) => {
          reports.push(await compare('PostgreSQL', [a, b, c], floor));
        }),
      ),
    );
  }
} finally {
  await stop(floor);
  await stop(catcher);
}
console.log(
  `connections ${BENCH_CONNECTIONS}, ${SECONDS} s per round, ${BENCH_ROUNDS} rounds each, Node ${process.version}, ` +
    `load average ${loadavg()[0]!.toFixed(1)}\n`,
);
for (const report of reports) console.log(`${report}\n`);
