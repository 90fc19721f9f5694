// Booking questions benchmark (issue 50): public bookings per second through the organisation
// page (POST /api/public/organisations/<slug>/reservations) of a POOL type asking five required
// questions of mixed kinds (text, email, phone, select, checkbox), every booking answering them,
// against the same type asking none, in the same run, on SQLite and on PostgreSQL, beside the
// bare Fastify floor. The two cases alternate for BENCH_ROUNDS rounds (default 3), so the
// machine's drift falls on both alike; the ratio of their median rates is the figure (aim: at
// least 0.9). Each booking's confirmation mail goes to the mail catcher in a process of its own;
// each case starts once the mail of the one before is sent (and on PostgreSQL after a vacuum).
// Run: npm run build && npm run bench -- questions
// (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS; BENCH_SKIP_PG=1 to skip PostgreSQL.)
import type autocannon from 'autocannon';
import { bookingBody } from './booking-load.js';
import {
  api,
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

/** The aim: a booking answering five questions keeps this share of the rate of one answering none. */
const AIM = 0.9;
const LANES = 4;

const QUESTIONS = [
  { id: 'company', label: 'Company', kind: 'text', required: true },
  { id: 'invoiceEmail', label: 'Invoice email', kind: 'email', required: true },
  { id: 'mobile', label: 'Mobile', kind: 'phone', required: true },
  { id: 'size', label: 'Room size', kind: 'select', required: true, options: ['Small', 'Medium', 'Large'] },
  { id: 'terms', label: 'I accept the house rules', kind: 'checkbox', required: true },
];
const ANSWERS = {
  company: 'Analytical Engines Ltd',
  invoiceEmail: 'accounts@example.test',
  mobile: '+44 20 7946 0000',
  size: 'Medium',
  terms: true,
};

/** An organisation with a booking page and two POOL types alike but for their questions. */
async function seed(base: string) {
  const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-questions-${process.pid}-${Date.now()}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  const slug = `bench-questions-${process.pid}`;
  await api(base, 'POST', '/api/organisations', { name: 'Bench', slug, timezone: 'UTC' }, auth);
  const operatingHours = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    openTime: '06:00',
    closeTime: '22:00',
  }));
  const poolType = async (name: string, questions: unknown[]) => {
    const type = await api<{ id: number }>(
      base,
      'POST',
      '/api/resource-types',
      {
        name,
        bookingMode: 'POOL',
        minBookingDuration: 30,
        bufferTime: 15,
        schedulePolicy: { operatingHours },
        questions,
      },
      auth,
    );
    await api(base, 'POST', '/api/resources', { name, resourceTypeId: type.id, capacity: LANES }, auth);
    return type.id;
  };
  return { slug, plain: await poolType('Plain', []), asked: await poolType('Asked', QUESTIONS) };
}

/**
 * Public bookings of a new slot each, answering `answers` when given; the counter lives across
 * the rounds (and their warm-ups), so no slot is asked twice.
 */
function publicBookings(
  slug: string,
  resourceTypeId: number,
  answers: Record<string, unknown> | undefined,
): autocannon.Request[] {
  let n = 0;
  return [
    {
      method: 'POST',
      path: `/api/public/organisations/${slug}/reservations`,
      headers: { 'content-type': 'application/json' },
      setupRequest: (request) => {
        const body = bookingBody(resourceTypeId, n++);
        return {
          ...request,
          body: JSON.stringify(answers ? { ...body, customer: { ...body.customer, answers } } : body),
        };
      },
    },
  ];
}

const ratios: string[] = [];
const catcher = await startMailCatcher();
try {
  await onBothDatabases(
    'questions',
    async (database, service, floor, databaseUrl) => {
      const { slug, plain, asked } = await seed(service.base);
      const postgres = database === 'PostgreSQL';
      const cases = {
        plain: publicBookings(slug, plain, undefined),
        asked: publicBookings(slug, asked, ANSWERS),
      };
      const rows: LoadRow[] = [];
      const rates: Record<keyof typeof cases, number[]> = { plain: [], asked: [] };
      for (let round = 1; round <= BENCH_ROUNDS; round++) {
        for (const name of ['plain', 'asked'] as const) {
          const what = name === 'plain' ? 'no questions' : 'five required questions answered';
          const row = await load({
            title: `${database}: public booking, ${what} (round ${round})`,
            server: service,
            path: `/api/public/organisations/${slug}/reservations`,
            requests: cases[name],
            postgres,
          });
          rows.push(row);
          rates[name].push(row.rps);
          await untilMailDrained(databaseUrl, database);
          if (postgres) await vacuum(databaseUrl);
        }
      }
      const ratio = median(rates.asked) / median(rates.plain);
      ratios.push(
        `${database}: with questions / without = ${median(rates.asked)} / ${median(rates.plain)} req/s = ${ratio.toFixed(2)} (aim ≥ ${AIM}${ratio >= AIM ? ', met' : ', MISSED'})`,
      );
      rows.push(
        await load({ title: `${database} run: floor (Fastify hello-world)`, server: floor, path: '/' }),
      );
      return rows;
    },
    `Booking questions: public bookings, connections ${BENCH_CONNECTIONS}, ${BENCH_ROUNDS} rounds, `,
    { SMTP_URL: catcher.smtpUrl },
  );
} finally {
  await stop(catcher);
}
for (const line of ratios) console.log(line);
