// What one PostgreSQL booking sends the database, counted, not timed (a busy machine moves
// counts not at all): the service started as `npm start` starts it, with bench/pg-statements.cjs
// preloaded, its confirmation mail sent to the mail catcher in a process of its own. One pool
// booking (POST /api/reservations), then one hold and its confirm, each alone: every round trip
// from its request's arrival until the mail drain has passed its events and the service has been
// quiet for a while, background polls included (the idle quarter second before shows those).
// Prints each request's round trips by connection, then the whole log of the case.
// Run: npm run build && npm run bench -- booking-statements   (PG_ADMIN_URL as bench/harness.ts)
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookingBody, seed } from './booking-load.js';
import {
  api,
  onDatabase,
  startMailCatcher,
  startService,
  stop,
  untilMailDrained,
  withPostgresDatabase,
} from './harness.js';

/** How long after the mail is sent the log keeps counting: outbox consumers, jobs and feeds that follow. */
const SETTLE_MS = 1_500;

/** The burst: bookings sent BURST_CLIENTS at a time, so the outbox and the mail batch as under load. */
const BURST = 200;
const BURST_CLIENTS = 20;

const outDir = join(tmpdir(), `bench-pg-statements-${process.pid}`);
const logLines = () => {
  const [file] = readdirSync(outDir);
  return readFileSync(join(outDir, file!), 'utf8').trimEnd().split('\n');
};

/** Every statement the cases ran, whole, each once: the lists above show their first characters. */
const statements = new Set<string>();

/** A part of the log counted by statement (its first characters), most frequent first, a count per booking beside. */
function tally(title: string, lines: string[], bookings: number): void {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const [, connection, statement] = line.split('\t');
    if (!/^c\d+$/.test(connection!)) continue;
    const key = statement!.slice(0, 110);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  console.log(`\n## ${title}: ${total} round trips, ${(total / bookings).toFixed(2)} a booking\n`);
  console.log('| round trips | a booking | statement |\n|---|---|---|');
  for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]))
    console.log(`| ${n} | ${(n / bookings).toFixed(2)} | \`${key.replaceAll('|', '\\|')}\` |`);
}

/** One case's part of the log: the round trips counted by connection, then each line. */
function report(title: string, lines: string[]): void {
  const byConnection = new Map<string, number>();
  for (const line of lines) {
    const [, connection, statement] = line.split('\t');
    if (!/^c\d+$/.test(connection!)) continue;
    byConnection.set(connection!, (byConnection.get(connection!) ?? 0) + 1);
    statements.add(statement!);
  }
  const counts = [...byConnection].map(([c, n]) => `${c} ${n}`).join(', ');
  const total = [...byConnection.values()].reduce((sum, n) => sum + n, 0);
  console.log(`\n## ${title}: ${total} round trips (${counts})\n`);
  for (const line of lines) console.log(`    ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
}

/** What PostgreSQL does inside an insert into reservations besides the row: its triggers, indexes and constraints. */
async function writesOfAnInsert(databaseUrl: string): Promise<void> {
  const rows = await onDatabase(
    databaseUrl,
    () => [],
    async (client) =>
      (
        await client.query<{ kind: string; name: string; detail: string }>(
          `select 'trigger' as kind, t.tgname as name,
                  p.proname || case when t.tgdeferrable then ' (deferred to commit)' else '' end as detail
             from pg_trigger t join pg_proc p on p.oid = t.tgfoid
            where t.tgrelid = 'reservations'::regclass and not t.tgisinternal and (t.tgtype & 4) = 4
           union all
           select 'index', c.relname, pg_get_indexdef(i.indexrelid)
             from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'reservations'::regclass
           union all
           select 'constraint', conname, pg_get_constraintdef(oid)
             from pg_constraint where conrelid = 'reservations'::regclass and contype in ('f', 'x', 'c')
           order by 1, 2`,
        )
      ).rows,
  );
  console.log(
    `\n## What an insert into reservations also does: ${rows.length} triggers, indexes and constraints\n`,
  );
  for (const { kind, name, detail } of rows) console.log(`- ${kind} ${name}: ${detail.slice(0, 160)}`);
}

const catcher = await startMailCatcher();
try {
  await withPostgresDatabase('bench_statements', async (databaseUrl) => {
    const logFile = join(tmpdir(), `bench-statements-${process.pid}.log`);
    const service = await startService(
      {
        DATABASE_URL: databaseUrl,
        SMTP_URL: catcher.smtpUrl,
        NODE_OPTIONS: `--require ${join(import.meta.dirname, 'pg-statements.cjs')}`,
        BENCH_PG_STATEMENTS_OUT: outDir,
      },
      logFile,
    );
    try {
      const { auth, distinctType, holdType } = await seed(service.base);
      await writesOfAnInsert(databaseUrl);
      // Each case once unlogged first: what a type's first booking does once (a prepared
      // statement's first use, the type's longest booking raised) is not what every booking does.
      const run = async (title: string, work: (slot: number) => Promise<void>) => {
        await work(0);
        await untilMailDrained(databaseUrl, title);
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const idleFrom = logLines().length;
        await new Promise((resolve) => setTimeout(resolve, 250));
        const from = logLines().length;
        report(`${title}, idle quarter second before`, logLines().slice(idleFrom, from));
        await work(1);
        await untilMailDrained(databaseUrl, title);
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        report(title, logLines().slice(from));
      };
      await run('pool booking', async (slot) => {
        await api(service.base, 'POST', '/api/reservations', bookingBody(distinctType, slot), auth);
      });
      await run('hold then confirm', async (slot) => {
        const hold = await api<{ id: number }>(
          service.base,
          'POST',
          '/api/reservations/holds',
          bookingBody(holdType, slot),
          auth,
        );
        await api(service.base, 'POST', `/api/reservations/${hold.id}/confirm`, undefined, auth);
      });
      const from = logLines().length;
      for (let next = 0; next < BURST; next += BURST_CLIENTS)
        await Promise.all(
          Array.from({ length: BURST_CLIENTS }, (_, i) =>
            api(service.base, 'POST', '/api/reservations', bookingBody(distinctType, 10 + next + i), auth),
          ),
        );
      await untilMailDrained(databaseUrl, 'burst');
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      tally(
        `${BURST} pool bookings, ${BURST_CLIENTS} at a time, until their mail is sent`,
        logLines().slice(from),
        BURST,
      );
    } finally {
      await stop(service);
      rmSync(logFile, { force: true });
      rmSync(outDir, { recursive: true, force: true });
    }
  });
} finally {
  await stop(catcher);
}
console.log('\n## The statements whole\n');
for (const statement of statements) console.log(`    ${statement}\n`);
