// What the event outbox costs a booking (issue 24: at most 10% of its throughput). The same
// head twice, on the same kind of database, in the same run: once as `npm start` runs it, and
// once without the outbox (its triggers dropped after the migrations, its consumers' poll off,
// OUTBOX_POLL_MS=0). Pool booking with distinct slots, rounds alternating between the two, beside
// the Fastify floor. Run: npm run bench -- outbox-cost
// (BENCH_ROUNDS, default 3; BENCH_SECONDS, default 6; BENCH_SKIP_PG=1 to skip PostgreSQL.)
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookings, seed } from './booking-load.js';
import {
  BENCH_CONNECTIONS,
  type LoadRow,
  load,
  type Server,
  startFloor,
  startService,
  stop,
  table,
  withPostgresDatabase,
} from './harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Slots each round may use: more than a round books, so no two rounds ask the same time. */
const SLOTS_PER_ROUND = 20_000;

/** Drops every outbox trigger of the database (names `outbox_...`, as its migrations make them). */
async function dropOutboxTriggers(databaseUrl: string): Promise<number> {
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    try {
      const names = db
        .prepare(
          "select name from sqlite_master where type = 'trigger' and name like 'outbox\\_%' escape '\\'",
        )
        .pluck()
        .all() as string[];
      for (const name of names) db.exec(`drop trigger "${name}"`);
      return names.length;
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ trigger: string; on: string }>(
      `select t.tgname as trigger, c.relname as on from pg_trigger t join pg_class c on c.oid = t.tgrelid
       where not t.tgisinternal and t.tgname like 'outbox\\_%'`,
    );
    for (const row of rows) await client.query(`drop trigger "${row.trigger}" on "${row.on}"`);
    return rows.length;
  } finally {
    await client.end();
  }
}

interface Contender {
  name: string;
  service: Server;
  auth: Record<string, string>;
  typeId: number;
  rounds: number;
}

async function contender(name: string, databaseUrl: string, logFile: string, withOutbox: boolean) {
  const env = { DATABASE_URL: databaseUrl };
  if (!withOutbox) {
    // Started once so that the migrations run, then without the triggers they made.
    await stop(await startService(env, logFile));
    const dropped = await dropOutboxTriggers(databaseUrl);
    if (dropped === 0) throw new Error(`${name}: no outbox trigger to drop`);
  }
  const service = await startService(withOutbox ? env : { ...env, OUTBOX_POLL_MS: '0' }, logFile);
  const { auth, distinctType } = await seed(service.base);
  return { name, service, auth, typeId: distinctType, rounds: 0 } satisfies Contender;
}

function round(database: string, c: Contender): Promise<LoadRow> {
  const offset = c.rounds++ * SLOTS_PER_ROUND;
  return load({
    title: `${database}: pool booking, ${c.name}`,
    server: c.service,
    path: '/api/reservations',
    seconds: SECONDS,
    requests: bookings(c.auth, c.typeId, (n) => offset + n),
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function compare(database: string, urls: [string, string], floor: Server): Promise<string> {
  const logs = urls.map((_, i) => join(tmpdir(), `bench-outbox-cost-${process.pid}-${i}.log`));
  const withOutbox = await contender('with the outbox', urls[0], logs[0]!, true);
  const without = await contender('without the outbox', urls[1], logs[1]!, false);
  try {
    const rows: LoadRow[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating, so that a drift of the machine falls on both alike.
      for (const c of r % 2 === 0 ? [withOutbox, without] : [without, withOutbox])
        rows.push(await round(database, c));
    }
    const floorRow = await load({
      title: `${database} run: floor (Fastify hello-world)`,
      server: floor,
      path: '/',
    });
    const of = (c: Contender) => rows.filter((row) => row.title.endsWith(c.name));
    const rps = (c: Contender) => median(of(c).map((row) => row.rps));
    const cpu = (c: Contender) => median(of(c).map((row) => row.serverCpuUs ?? 0));
    const cost = 1 - rps(withOutbox) / rps(without);
    return (
      `${table([...rows, floorRow], floorRow.rps)}\n\n` +
      `${database}: median ${rps(withOutbox)}/s with the outbox, ${rps(without)}/s without: ` +
      `it costs ${(cost * 100).toFixed(1)}% of throughput; CPU per booking ${cpu(withOutbox)} µs against ` +
      `${cpu(without)} µs (+${cpu(withOutbox) - cpu(without)} µs)`
    );
  } finally {
    await stop(withOutbox.service);
    await stop(without.service);
    for (const log of logs) rmSync(log, { force: true });
  }
}

const floor = await startFloor();
const reports: string[] = [];
try {
  const files = [0, 1].map((i) => join(tmpdir(), `bench-outbox-cost-${process.pid}-${i}.db`));
  try {
    reports.push(await compare('SQLite', [`sqlite:${files[0]}`, `sqlite:${files[1]}`], floor));
  } finally {
    for (const file of files)
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
  if (!process.env.BENCH_SKIP_PG) {
    await withPostgresDatabase('bench_outbox_with', (a) =>
      withPostgresDatabase('bench_outbox_without', async (b) => {
        reports.push(await compare('PostgreSQL', [a, b], floor));
      }),
    );
  }
} finally {
  await stop(floor);
}
console.log(
  `connections ${BENCH_CONNECTIONS}, ${SECONDS} s per round, ${ROUNDS} rounds each, Node ${process.version}, ` +
    `load average ${loadavg()[0]!.toFixed(1)}\n`,
);
for (const report of reports) console.log(`${report}\n`);
