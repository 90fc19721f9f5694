// Teams benchmark (issue 52, DECISIONS.md "Teams"), two comparisons in the same run, on SQLite
// and on PostgreSQL, beside the bare Fastify floor. Pool assignment: pool bookings per second of
// a round-robin POOL type against the same type assigning the first free resource. Both types are bench/booking.ts's
// (opening hours 06:00-22:00, 30-minute bookings, 15-minute buffer, one parent of 4 lanes), every
// request a slot nobody asked for. Round robin counts each lane's bookings of the last 30 days
// (the kept count of reservations migration 0070: the window's days from a counter, so its cost
// does not grow with what the run has booked) and, on PostgreSQL, books one at a time: each
// booking's insert takes the type's lock, counts and inserts in one statement
// (round-robin-insert.ts), the lock held until that statement commits: the costs this measures.
// The cases alternate for BENCH_ROUNDS rounds (default 3), so the machine's drift falls on both
// alike; the ratio of their median rates is the figure (aim: at least 0.9).
// Collective bookings: a booking of three resources at once against a booking of one
// (`collectiveComparisons`, aim at least 0.5); both in the same alternation.
// Each booking's confirmation mail goes to the mail catcher in a process of its own; each case
// starts once the mail of the one before is sent (and on PostgreSQL after a vacuum).
// Run: npm run build && npm run bench -- assignment
// (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS; BENCH_SKIP_SQLITE=1 or BENCH_SKIP_PG=1 to skip one.)
import type autocannon from 'autocannon';
import { bookings, organisation, poolTypes, singleResources } from './booking-load.js';
import {
  BENCH_CONNECTIONS,
  BENCH_ROUNDS,
  type LoadRow,
  load,
  median,
  onBothDatabases,
  startMailCatcher,
  stop,
  untilMailDrained,
  vacuum,
} from './harness.js';

/** A load of bookings: what its rows are called, and its requests (their slot counter lives across rounds). */
interface Case {
  label: string;
  requests: autocannon.Request[];
}

/** Two cases measured in alternation: `measured`'s median rate must be at least `aim` of `baseline`'s. */
interface Comparison {
  name: string;
  aim: number;
  baseline: Case;
  measured: Case;
}

/** Round robin against first free: two POOL types alike but for their `assignment`. */
async function assignmentComparisons(base: string, auth: Record<string, string>): Promise<Comparison[]> {
  const [firstFree] = await poolTypes(base, auth, ['First free'], { assignment: 'first_free' });
  const [roundRobin] = await poolTypes(base, auth, ['Round robin'], { assignment: 'round_robin' });
  return [
    {
      name: 'round robin / first free',
      aim: 0.9,
      baseline: { label: 'pool booking, first_free', requests: bookings(auth, firstFree!, (n) => n) },
      measured: { label: 'pool booking, round_robin', requests: bookings(auth, roundRobin!, (n) => n) },
    },
  ];
}

/**
 * Collective bookings (DECISIONS.md "Teams"): one reservation taking three resources for the same
 * time (`resourceIds`) against a booking of one named resource (`resourceId`), resources of one
 * SINGLE_RESOURCE type with the pool's hours and slots (each case its own resources, so their
 * slots never meet). Aim: at least half the rate of the single booking.
 */
async function collectiveComparisons(base: string, auth: Record<string, string>): Promise<Comparison[]> {
  const [single, ...three] = await singleResources(base, auth, 'Host', 4);
  return [
    {
      name: 'three resources / one',
      aim: 0.5,
      baseline: {
        label: 'booking of one resource',
        requests: bookings(auth, { resourceId: single }, (n) => n),
      },
      measured: {
        label: 'collective booking of three resources',
        requests: bookings(auth, { resourceIds: three }, (n) => n),
      },
    },
  ];
}

const verdicts: string[] = [];
const catcher = await startMailCatcher();
try {
  await onBothDatabases(
    'assignment',
    async (database, service, floor, databaseUrl) => {
      const auth = await organisation(service.base);
      const comparisons = [
        ...(await assignmentComparisons(service.base, auth)),
        ...(await collectiveComparisons(service.base, auth)),
      ];
      const postgres = database === 'PostgreSQL';
      const rows: LoadRow[] = [];
      const measure = async (one: Case, round: number) => {
        const row = await load({
          title: `${database}: ${one.label} (round ${round})`,
          server: service,
          path: '/api/reservations',
          requests: one.requests,
          postgres,
        });
        rows.push(row);
        await untilMailDrained(databaseUrl, database);
        if (postgres) await vacuum(databaseUrl);
        return row.rps;
      };
      const rates = comparisons.map(() => ({ baseline: [] as number[], measured: [] as number[] }));
      for (let round = 1; round <= BENCH_ROUNDS; round++) {
        for (const [i, comparison] of comparisons.entries()) {
          rates[i]!.baseline.push(await measure(comparison.baseline, round));
          rates[i]!.measured.push(await measure(comparison.measured, round));
        }
      }
      for (const [i, { name, aim }] of comparisons.entries()) {
        const [measured, baseline] = [median(rates[i]!.measured), median(rates[i]!.baseline)];
        const ratio = measured / baseline;
        verdicts.push(
          `${database}: ${name} = ${measured} / ${baseline} req/s = ${ratio.toFixed(2)} (aim ≥ ${aim}${ratio >= aim ? ', met' : ', MISSED'})`,
        );
      }
      rows.push(
        await load({ title: `${database} run: floor (Fastify hello-world)`, server: floor, path: '/' }),
      );
      return rows;
    },
    `Teams: connections ${BENCH_CONNECTIONS}, ${BENCH_ROUNDS} rounds, `,
    { SMTP_URL: catcher.smtpUrl },
  );
} finally {
  await stop(catcher);
}
for (const line of verdicts) console.log(line);
