// Booking benchmark: pool bookings per second with BENCH_CONNECTIONS (default 20) clients,
// on SQLite and on PostgreSQL, beside the bare Fastify floor in the same run. The service is
// started as `npm start` starts it; everything is seeded through its HTTP API. A POOL type
// (opening hours 06:00-22:00 every day, 30-minute bookings, 15-minute buffer) with one parent
// of LANES lanes; two cases:
// - distinct slots: every request asks for a slot nobody asked for (lane 1 takes them all,
//   each exactly one buffer after the previous one on that lane);
// - filling the pool: each slot is asked LANES times in a row, so later requests of a slot
//   find the first lanes taken (and, under load, race for the same lanes);
// - hold then confirm: a hold of a new slot, then its confirm (issue 22), counted per request
//   (pairs per second are half the requests per second).
// On PostgreSQL, each of the distinct-slots and hold-then-confirm cases is measured right after
// the PostgreSQL floor (bench/pg-floor.mjs: a bare `pg` Pool of BENCH_CONNECTIONS clients, one
// autocommitted INSERT a booking into a table of reservations' shape under the same exclusion
// constraint, in a scratch schema of the same database), and the run ends with each case's ratio
// to the floor beside it: pool bookings a second over inserts a second (aim 0.15), hold-then-
// confirm pairs a second over inserts a second (aim 0.08).
// Each booking's confirmation mail goes to the mail catcher in a process of its own, as a
// deployment's goes to its SMTP server (`npm start` in development runs the catcher inside the
// service's process, where receiving the mail would be counted as the service's work).
// Each case (and the floor) starts once the mail of the case before is sent, and on PostgreSQL
// after a vacuum (this machine's PostgreSQL runs without autovacuum, whose default is on): no
// measure is charged for an earlier case's mail or dead rows.
// Run: npm run bench -- booking
// (BENCH_SECONDS, BENCH_CONNECTIONS; PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_SKIP_PG=1 to skip PostgreSQL.)
import { bookings, holdsConfirmed, LANES, seed } from './booking-load.js';
import {
  BENCH_CONNECTIONS,
  type LoadRow,
  load,
  onBothDatabases,
  postgresFloor,
  startMailCatcher,
  stop,
  untilMailDrained,
  vacuum,
} from './harness.js';

/** Each PostgreSQL case with the ratio it aims at, to the PostgreSQL floor measured beside it. */
const BESIDE_POSTGRES_FLOOR = [
  { kind: 'pool booking', unit: 'bookings', requestsEach: 1, aim: 0.15 },
  { kind: 'hold then confirm', unit: 'pairs', requestsEach: 2, aim: 0.08 },
] as const;
const ratios: string[] = [];

const catcher = await startMailCatcher();
try {
  await onBothDatabases(
    'booking',
    async (database, service, floor, databaseUrl) => {
      const { auth, distinctType, fillingType, holdType } = await seed(service.base);
      const postgres = database === 'PostgreSQL';
      const settled = async () => {
        await untilMailDrained(databaseUrl, database);
        if (postgres) await vacuum(databaseUrl);
      };
      const cases = [
        {
          title: `${database}: pool booking, distinct slots`,
          path: '/api/reservations',
          requests: bookings(auth, distinctType, (n) => n),
          besideFloor: BESIDE_POSTGRES_FLOOR[0],
        },
        {
          title: `${database}: pool booking, filling ${LANES} lanes per slot`,
          path: '/api/reservations',
          requests: bookings(auth, fillingType, (n) => Math.floor(n / LANES)),
        },
        {
          title: `${database}: hold then confirm (2 requests a pair)`,
          path: '/api/reservations/holds',
          requests: holdsConfirmed(auth, holdType, (n) => n),
          besideFloor: BESIDE_POSTGRES_FLOOR[1],
        },
      ];
      const rows: LoadRow[] = [];
      for (const { besideFloor, ...one } of cases) {
        const floorRow =
          postgres && besideFloor
            ? await postgresFloor(databaseUrl, 'PostgreSQL floor: bare pg Pool, one INSERT a booking')
            : undefined;
        if (floorRow) {
          rows.push(floorRow);
          await settled();
        }
        const row = await load({ ...one, server: service, postgres });
        rows.push(row);
        if (floorRow && besideFloor) ratios.push(ratioLine(besideFloor, row, floorRow));
        await settled();
      }
      rows.push(
        await load({ title: `${database} run: floor (Fastify hello-world)`, server: floor, path: '/' }),
      );
      return rows;
    },
    `connections ${BENCH_CONNECTIONS}, `,
    { SMTP_URL: catcher.smtpUrl },
  );
} finally {
  await stop(catcher);
}
if (ratios.length > 0) console.log(`Beside the PostgreSQL floor:\n${ratios.join('\n')}\n`);

/** A case's rate over the PostgreSQL floor's beside it, with its aim. */
function ratioLine(
  { kind, unit, requestsEach, aim }: (typeof BESIDE_POSTGRES_FLOOR)[number],
  row: LoadRow,
  floor: LoadRow,
): string {
  const rate = Math.round(row.rps / requestsEach);
  const ratio = rate / floor.rps;
  return `- ${kind}: ${rate} ${unit}/s beside ${floor.rps} inserts/s = ${ratio.toFixed(3)} (aim ≥ ${aim}: ${ratio >= aim ? 'met' : 'not met'})`;
}
