// Explain benchmark (issue 52): why a day can or cannot be booked, on SQLite and on PostgreSQL,
// with 10,000 reservations in the month (the month of bench/availability.ts, seeded as
// bench/month-load.ts says: one parent of 50 capacity lanes, 31 days, a fifth of the
// reservations holds, half live and half lapsed), each case at 1 client right after the bare
// Fastify floor at 1 client. Cases: one lane (a resource of its own) for a day, the aim's case
// (p50 at most 2 ms); and the parent, its 50 lanes pooled, for the same day (no aim: about
// 320 reservations that day against the lane's 6).
// Run: npm run build && npm run bench -- explain
// (BENCH_SECONDS; PG_ADMIN_URL as for the others; BENCH_SKIP_SQLITE=1 or BENCH_SKIP_PG=1 to skip one.)
import { type LoadRow, load, loadBesideFloor, onBothDatabases, untilMailDrained } from './harness.js';
import { HOUR, seedCatalogue, seedReservations } from './month-load.js';

const RESERVATIONS = 10_000;
/** The aim: explaining one resource for a day answers within this at the median, at 1 client. */
const AIM_P50_MS = 2;

const verdicts: string[] = [];
await onBothDatabases('explain', async (database, service, floor, databaseUrl) => {
  const seeded = await seedCatalogue(service.base);
  await seedReservations(databaseUrl, seeded, 0, RESERVATIONS);
  await untilMailDrained(databaseUrl, database);
  // The tenth day, 00:00 to 24:00 UTC: busy hours, closed hours, holds live and lapsed.
  const day = seeded.start + 10 * 24 * HOUR;
  const query = `startTime=${new Date(day).toISOString()}&endTime=${new Date(day + 24 * HOUR).toISOString()}`;
  const explain = (what: string, resourceId: number) =>
    loadBesideFloor(floor, {
      title: `${database}, ${RESERVATIONS.toLocaleString('en')} reservations: explain ${what} for a day, 1 client`,
      server: service,
      path: `/api/resources/${resourceId}/availability/explain?${query}`,
      headers: seeded.headers,
      connections: 1,
    });
  const lane = await explain('one lane', seeded.laneIds[3]!);
  verdicts.push(
    `${database}: explain one resource p50 ${lane.p50} ms (aim ≤ ${AIM_P50_MS} ms${lane.p50 <= AIM_P50_MS ? ', met' : ', MISSED'})`,
  );
  const rows: LoadRow[] = [
    lane,
    await explain(`the parent of ${seeded.laneIds.length} lanes`, seeded.parentId),
  ];
  rows.push(
    await load({
      title: `${database} run: floor (Fastify hello-world), 1 client`,
      server: floor,
      path: '/',
      connections: 1,
    }),
  );
  return rows;
});
for (const line of verdicts) console.log(line);
