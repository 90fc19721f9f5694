import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { PRIVACY_DECLARATIONS } from '../src/modules/privacy/declarations.js';
import { exportDocument } from '../src/modules/privacy/export.js';
const url = process.argv[2]!;
const db = createDatabase(url);
await migrateToLatest(db);
const k = db.kysely;
const now = new Date().toISOString();
let uid = (await k.selectFrom('users').select('id').executeTakeFirst())?.id;
if (!uid) {
  uid = (await k.insertInto('users').values({ email: `p@x.test`, name: 'P', passwordHash: 'x', plan: 'STORE', isGlobalAdmin: false, createdAt: now, updatedAt: now }).returning('id').executeTakeFirstOrThrow()).id;
  const cal = (await k.insertInto('calendars').values({ ownerId: uid, name: 'c', color: '#000000', timezone: 'UTC', description: null, isDefault: true, createdAt: now, updatedAt: now }).returning('id').executeTakeFirstOrThrow()).id;
  for (let f = 0; f < Number(process.env.N ?? 100000); f += 1000)
    await k.insertInto('events').values(Array.from({ length: 1000 }, (_, i) => ({ calendarId: cal, title: `Event ${f+i}: meeting with the planning group`, description: (f+i)%3 ? null : 'Agenda item; bring the quarterly numbers', location: 'Room 4', startTime: new Date(Date.parse('2024-01-01') + ((f+i)%3650)*86400000).toISOString(), endTime: now, allDay: false, timezone: 'UTC', recurrence: null, reminders: '[{"minutes":15,"method":"popup"}]', occursUntil: null, createdAt: now, updatedAt: now }))).execute();
  if (db.pool) await db.pool.query('analyze');
}
const subject = { userId: uid, email: 'p@x.test', name: 'P' };
for (const batch of (process.env.BATCHES ?? '500,1000,2000').split(',').map(Number)) {
  for (let run = 0; run < 2; run++) {
    globalThis.gc!();
    const base = process.memoryUsage();
    let peakRss = base.rss, peakHeap = base.heapUsed;
    const timer = setInterval(() => { const m = process.memoryUsage(); peakRss = Math.max(peakRss, m.rss); peakHeap = Math.max(peakHeap, m.heapUsed); }, 2);
    const t0 = performance.now(); let bytes = 0;
    let last = performance.now(); let worst = 0;
    for await (const chunk of exportDocument(k, PRIVACY_DECLARATIONS, subject, now, batch)) { bytes += chunk.length; const t = performance.now(); worst = Math.max(worst, t - last); last = t; }
    console.log('   slowest gap between chunks', worst.toFixed(0), 'ms');
    clearInterval(timer);
    console.log(`batch ${batch} run ${run}: ${(performance.now()-t0).toFixed(0)} ms, ${(bytes/1e6).toFixed(1)} MB, rss +${((peakRss-base.rss)/1048576).toFixed(1)} MB, heap +${((peakHeap-base.heapUsed)/1048576).toFixed(1)} MB`);
  }
}
await db.close();
