// Calendar sync benchmark: against the provider emulators (real HTTP), a full sync of a
// calendar with 10,000 events and an incremental sync of 100 changes (40 updates, 30 creates,
// 30 deletions), for each provider, on SQLite (a file, WAL) and on PostgreSQL. Reports seconds
// and database queries per event. Run: npm run bench -- calendar-sync
// (PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres; BENCH_SKIP_PG=1 to skip;
// BENCH_EVENTS to change the 10,000).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, type Db } from '../src/db/database.js';
import { startCalendarProviderAEmulator } from '../tools/emulators/calendar-provider-a/server.js';
import { startCalendarProviderBEmulator } from '../tools/emulators/calendar-provider-b/server.js';
import { freePort } from './harness.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CHANGES = { updates: 40, creates: 30, deletes: 30 };
const DAY = 86_400_000;

/** Counts every query the app sends (transactions included). */
function counting(): { plugin: KyselyPlugin; count: () => number } {
  let n = 0;
  return {
    plugin: {
      transformQuery(args) {
        n += 1;
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    },
    count: () => n,
  };
}

interface Row {
  database: string;
  provider: string;
  phase: string;
  events: number;
  seconds: number;
  queries: number;
}

async function run(label: string, raw: Db): Promise<Row[]> {
  const a = await startCalendarProviderAEmulator({
    accounts: ['bench@a.test'],
    maxEventsPerCalendar: EVENTS * 3,
  });
  const b = await startCalendarProviderBEmulator({
    accounts: ['bench@b.test'],
    maxEventsPerCalendar: EVENTS * 3,
  });
  const counter = counting();
  // The app listens for real, as deployed: B validates its subscription against PUBLIC_URL.
  const port = await freePort();
  const db: Db = { ...raw, kysely: raw.kysely.withPlugin(counter.plugin) };
  const app = await buildApp(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_MAX: '100000000',
      JOB_QUEUE: 'in-process',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...a.env(),
      ...b.env(),
    }),
    { db, logger: false },
  );
  await app.listen({ port, host: '127.0.0.1' });
  const register = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: {
      email: `bench-${label}-${process.pid}@example.test`,
      password: 'benchmark password',
      name: 'Bench',
    },
  });
  const auth = { authorization: `Bearer ${register.json().accessToken}` };
  const rows: Row[] = [];

  for (const provider of ['calendar_provider_a', 'calendar_provider_b'] as const) {
    const isA = provider === 'calendar_provider_a';
    const authUrl = (
      await app.inject({ method: 'GET', url: `/api/calendar-sync/auth/${provider}`, headers: auth })
    ).json().authUrl as string;
    const consent = await fetch(authUrl, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    await app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });

    // 10,000 single events over the coming 300 days (inside B's calendarView window).
    const calendarId = isA
      ? a.createCalendar('bench@a.test', { summary: 'Bench', timeZone: 'Europe/Berlin' }).id
      : b.createCalendar('bench@b.test', { name: 'Bench' }).id;
    const base = Date.now() + DAY;
    const at = (i: number, hours = 0) =>
      new Date(base + (i % 300) * DAY + (i % 10) * 3_600_000 + hours * 3_600_000);
    const inputs = Array.from({ length: EVENTS }, (_, i) =>
      isA
        ? {
            summary: `Event ${i}`,
            description: `Bench event number ${i}`,
            location: `Room ${i % 50}`,
            start: { dateTime: at(i).toISOString() },
            end: { dateTime: at(i, 1).toISOString() },
          }
        : {
            subject: `Event ${i}`,
            body: { contentType: 'text', content: `Bench event number ${i}` },
            location: { displayName: `Room ${i % 50}` },
            start: { dateTime: at(i).toISOString().slice(0, 19), timeZone: 'UTC' },
            end: { dateTime: at(i, 1).toISOString().slice(0, 19), timeZone: 'UTC' },
          },
    );
    const created = isA
      ? a.createEvents('bench@a.test', calendarId, inputs)
      : b.createEvents('bench@b.test', calendarId, inputs);

    // Full sync: the mapping queues it; measured until the queue is idle.
    let queries = counter.count();
    let t0 = performance.now();
    const mapped = await app.inject({
      method: 'POST',
      url: '/api/calendar-sync/sync',
      headers: auth,
      payload: {
        provider,
        calendars: [{ externalId: calendarId, localName: 'Bench', bidirectionalSync: false }],
      },
    });
    if (mapped.statusCode !== 200) throw new Error(mapped.body);
    await app.jobs.idle();
    let seconds = (performance.now() - t0) / 1000;
    const status = (
      await app.inject({ method: 'GET', url: '/api/calendar-sync/status', headers: auth })
    ).json();
    const synced = status.providers.find((p: { provider: string }) => p.provider === provider)
      .syncedCalendars[0];
    const local = Number(
      (
        await raw.kysely
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('calendarId', '=', synced.localCalendarId)
          .executeTakeFirstOrThrow()
      ).n,
    );
    if (local !== EVENTS)
      throw new Error(`${provider}: ${local} local events after the full sync, expected ${EVENTS}`);
    rows.push({
      database: label,
      provider,
      phase: 'full sync',
      events: EVENTS,
      seconds,
      queries: counter.count() - queries,
    });

    // Incremental: 100 changes at the provider, then one sync of that calendar. Push channels
    // are ended first, so no notification-triggered sync runs alongside the measured one.
    if (isA) a.expireChannels();
    else b.expireSubscriptions();
    await app.jobs.idle();
    for (let i = 0; i < CHANGES.updates; i += 1) {
      const id = created[i * 7]!.id;
      if (isA) a.updateEvent('bench@a.test', calendarId, id, { summary: `Event ${i * 7}, changed` });
      else b.updateEvent('bench@b.test', calendarId, id, { subject: `Event ${i * 7}, changed` });
    }
    for (let i = 0; i < CHANGES.deletes; i += 1) {
      const id = created[EVENTS - 1 - i * 11]!.id;
      if (isA) a.deleteEvent('bench@a.test', calendarId, id);
      else b.deleteEvent('bench@b.test', calendarId, id);
    }
    const more = inputs.slice(0, CHANGES.creates);
    if (isA) a.createEvents('bench@a.test', calendarId, more);
    else b.createEvents('bench@b.test', calendarId, more);
    const mapping = await raw.kysely
      .selectFrom('calendarSyncMappings')
      .select('id')
      .where('localCalendarId', '=', synced.localCalendarId)
      .executeTakeFirstOrThrow();
    queries = counter.count();
    t0 = performance.now();
    const outcome = await app.services.calendarSync.engine.sync(mapping.id);
    seconds = (performance.now() - t0) / 1000;
    const r = outcome?.result;
    if (
      !r ||
      r.updated !== CHANGES.updates ||
      r.inserted !== CHANGES.creates ||
      r.deleted !== CHANGES.deletes
    )
      throw new Error(
        `${provider}: unexpected incremental result ${JSON.stringify(r && { ...r, changed: r.changed.length })}`,
      );
    rows.push({
      database: label,
      provider,
      phase: 'incremental, 100 changes',
      events: 100,
      seconds,
      queries: counter.count() - queries,
    });
  }
  await app.close();
  await a.close();
  await b.close();
  return rows;
}

const results: Row[] = [];
const sqliteFile = join(tmpdir(), `bench-calendar-sync-${process.pid}.db`);
const sqlite = createDatabase(`sqlite:${sqliteFile}`);
try {
  results.push(...(await run('SQLite', sqlite)));
} finally {
  await sqlite.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
}

if (!process.env.BENCH_SKIP_PG) {
  const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `rs_bench_sync_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const postgres = createDatabase(url.toString());
  try {
    results.push(...(await run('PostgreSQL', postgres)));
  } finally {
    await postgres.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

console.log('| database | provider | sync | events | seconds | queries | queries per event |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.database} | ${r.provider} | ${r.phase} | ${r.events} | ${r.seconds.toFixed(r.seconds < 1 ? 3 : 2)} | ${r.queries} | ${(r.queries / r.events).toFixed(4)} |`,
  );
