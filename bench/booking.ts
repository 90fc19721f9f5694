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
// Each booking's confirmation mail goes to the mail catcher in a process of its own, as a
// deployment's goes to its SMTP server (`npm start` in development runs the catcher inside the
// service's process, where receiving the mail would be counted as the service's work).
// Run: npm run bench -- booking
// (BENCH_SECONDS, BENCH_CONNECTIONS; PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_SKIP_PG=1 to skip PostgreSQL.)
import { bookings, holdsConfirmed, LANES, seed } from './booking-load.js';
import { BENCH_CONNECTIONS, load, onBothDatabases, startMailCatcher, stop } from './harness.js';

const catcher = await startMailCatcher();
try {
  await onBothDatabases(
    'booking',
    async (database, service, floor) => {
      const { auth, distinctType, fillingType, holdType } = await seed(service.base);
      const postgres = database === 'PostgreSQL';
      return [
        await load({
          title: `${database}: pool booking, distinct slots`,
          server: service,
          path: '/api/reservations',
          requests: bookings(auth, distinctType, (n) => n),
          postgres,
        }),
        await load({
          title: `${database}: pool booking, filling ${LANES} lanes per slot`,
          server: service,
          path: '/api/reservations',
          requests: bookings(auth, fillingType, (n) => Math.floor(n / LANES)),
          postgres,
        }),
        await load({
          title: `${database}: hold then confirm (2 requests a pair)`,
          server: service,
          path: '/api/reservations/holds',
          requests: holdsConfirmed(auth, holdType, (n) => n),
          postgres,
        }),
        await load({ title: `${database} run: floor (Fastify hello-world)`, server: floor, path: '/' }),
      ];
    },
    `connections ${BENCH_CONNECTIONS}, `,
    { SMTP_URL: catcher.smtpUrl },
  );
} finally {
  await stop(catcher);
}
