import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { PRIVACY_DECLARATIONS } from '../src/modules/privacy/declarations.js';
import pg from 'pg';
const url = process.argv[2]!;
const db = createDatabase(url);
await migrateToLatest(db);
const k = db.kysely;
const now = new Date().toISOString();
const uid = (await k.insertInto('users').values({ email: `p@x.test`, name: 'P', passwordHash: 'x', plan: 'STORE', isGlobalAdmin: false, createdAt: now, updatedAt: now }).returning('id').executeTakeFirstOrThrow()).id;
const cal = (await k.insertInto('calendars').values({ ownerId: uid, name: 'c', color: '#000000', timezone: 'UTC', description: null, isDefault: true, createdAt: now, updatedAt: now }).returning('id').executeTakeFirstOrThrow()).id;
for (let f = 0; f < 100000; f += 1000)
  await k.insertInto('events').values(Array.from({ length: 1000 }, (_, i) => ({ calendarId: cal, title: `Event ${f+i}: meeting with the planning group`, description: null, location: 'Room 4', startTime: new Date(Date.parse('2024-01-01') + ((f+i)%3650)*86400000).toISOString(), endTime: now, allDay: false, timezone: 'UTC', recurrence: null, reminders: '[]', occursUntil: null, createdAt: now, updatedAt: now }))).execute();
if (db.pool) {
  if (process.env.ANALYZE) await db.pool.query('analyze');
  const r = await db.pool.query("explain analyze select id, title from events where calendar_id = $1 and (start_time, id) > ($2, $3) order by start_time, id limit 1000", [cal, '2025-06-01T00:00:00Z', 5]);
  console.log(r.rows.map((x: any) => x['QUERY PLAN']).join('\n'));
}
const subject = { userId: uid, email: 'p@x.test', name: 'P' };
const section = PRIVACY_DECLARATIONS.find((d) => d.module === 'events')!.exports[0]!;
for (const batch of [1000, 2000, 5000]) {
  let after = null as any; let n = 0; const t0 = performance.now(); let json = 0;
  do { const { records, next } = await section.batch(k, subject, after, batch); n += records.length; const t1 = performance.now(); for (const r of records) JSON.stringify(r); json += performance.now() - t1; after = next; } while (after);
  console.log(`kysely batch ${batch}: ${n} rows in ${(performance.now() - t0).toFixed(0)} ms (json ${json.toFixed(0)} ms)`);
}
if (db.pool) {
  const t0 = performance.now();
  const r = await db.pool.query('select id, calendar_id, title, description, location, start_time, end_time, all_day, timezone, recurrence, reminders, external_provider, external_id, external_last_synced_at, created_at, updated_at from events where calendar_id = $1 order by start_time, id', [cal]);
  console.log(`raw pg one query: ${r.rows.length} rows in ${(performance.now() - t0).toFixed(0)} ms`);
  const t1 = performance.now();
  for (let i = 0; i < 400000; i++) new Date('2024-01-01 09:00:00+00').toISOString();
  console.log(`400k Date parses: ${(performance.now() - t1).toFixed(0)} ms`);
}
await db.close();
