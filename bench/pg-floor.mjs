// The floor PostgreSQL bookings are measured beside: a bare `pg` Pool of CONNECTIONS clients,
// each inserting bookings one autocommitted INSERT at a time into a table of the same shape as
// reservations' kept time, under the same exclusion constraint (a lane's kept times never
// overlap: int4range of the lane && and tstzrange(start, blocked until) &&, for kept statuses).
// Every insert asks for a slot nobody asked for: 30 minutes every 45 on one lane, as the
// service's distinct-slots case books them. Plain JavaScript in a process of its own, so
// nothing but pg runs. DATABASE_URL, SCHEMA (made if missing, with its table), CONNECTIONS,
// SECONDS and WARMUP_SECONDS from the environment; SLOT_OFFSET is the first slot, so floors
// measured on one table never ask the same time. With RESERVATIONS (JSON: organisationId,
// resourceTypeId, resourceId, userId of the service's database) the same loop inserts into the
// service's own `reservations` table instead, the columns a booking writes, its lane locked as a
// booking's insert locks it (bench/booking-insert.ts): that table's triggers, keys and indexes
// are then the only difference. Prints one line of JSON: inserts, seconds, p50/p99 ms, this
// process's CPU µs an insert.
import pg from 'pg';

const env = (name, fallback) => process.env[name] ?? fallback;
const schema = env('SCHEMA', 'bench_floor');
const connections = Number(env('CONNECTIONS', 20));
const seconds = Number(env('SECONDS', 10));
const warmupSeconds = Number(env('WARMUP_SECONDS', 2));
let slot = Number(env('SLOT_OFFSET', 0));

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: connections });
await pool.query(`create schema if not exists ${schema}`);
await pool.query(`
  create table if not exists ${schema}.bookings (
    id bigserial primary key,
    resource_id integer not null,
    status text not null,
    start_time timestamptz not null,
    end_time timestamptz not null,
    blocked_until timestamptz,
    customer_name text not null,
    customer_email text not null,
    created_at timestamptz not null default now(),
    constraint bookings_no_overlap exclude using gist (
      int4range(resource_id, resource_id, '[]') with &&,
      tstzrange(start_time, coalesce(blocked_until, end_time)) with &&
    ) where (status in ('held', 'pending_payment', 'confirmed'))
  )`);

const INSERT = `insert into ${schema}.bookings
  (resource_id, status, start_time, end_time, blocked_until, customer_name, customer_email)
  values (1, 'confirmed', $1, $2, $3, 'Bench Booker', 'booker@example.test')
  on conflict on constraint bookings_no_overlap do nothing returning id`;
const MINUTE = 60_000;
const FIRST = Date.UTC(2030, 0, 1);

const reservations = process.env.RESERVATIONS ? JSON.parse(process.env.RESERVATIONS) : null;
/** A confirmed booking by a signed-in user as the service writes one (unique token hash and reference a row). */
const INSERT_RESERVATION = `insert into reservations
  (organisation_id, resource_type_id, resource_id, status, start_time, end_time, blocked_until,
   customer_name, customer_email, customer_info, source, created_by_user_id, manage_token_hash,
   manage_token_sealed, assignment_strategy, assignment_reason, reference, created_at, updated_at)
  select $4, $5, resources.id, 'confirmed', $1, $2, $3, 'Bench Booker', 'booker@example.test', '{}',
    'api', $6, $7, $8, 'first_free', 'The first free lane', $9, now(), now()
  from resources where resources.id = $10 for share
  on conflict on constraint reservations_no_overlap do nothing returning *`;

/** Inserts the next slot; throws when the constraint refused it (no slot is asked twice). */
async function insertOne() {
  const start = FIRST + slot++ * 45 * MINUTE;
  const times = [start, start + 30 * MINUTE, start + 45 * MINUTE].map((t) => new Date(t).toISOString());
  const { rowCount } = reservations
    ? await pool.query(INSERT_RESERVATION, [...times, ...reservationValues(slot)])
    : await pool.query(INSERT, times);
  if (rowCount !== 1) throw new Error('the floor asked for a slot already taken');
}

/** The rest of a reservation's values: its unique token hash, sealed token and reference made from its slot. */
function reservationValues(n) {
  const { organisationId, resourceTypeId, resourceId, userId } = reservations;
  const unique = `${process.pid}-${n}`.padStart(64, '0');
  return [organisationId, resourceTypeId, userId, unique, `sealed-${unique}`, `F${n}`, resourceId];
}

/** CONNECTIONS clients inserting until `ms` have passed: each insert's latency (ms). */
async function run(ms) {
  const until = performance.now() + ms;
  const latencies = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const began = performance.now();
        await insertOne();
        latencies.push(performance.now() - began);
      }
    }),
  );
  return latencies;
}

await run(warmupSeconds * 1000);
const cpuBefore = process.cpuUsage();
const began = performance.now();
const latencies = (await run(seconds * 1000)).sort((a, b) => a - b);
const elapsed = (performance.now() - began) / 1000;
const cpu = process.cpuUsage(cpuBefore);
await pool.end();
const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
console.log(
  JSON.stringify({
    inserts: latencies.length,
    seconds: elapsed,
    p50: at(0.5),
    p99: at(0.99),
    cpuUs: Math.round((cpu.user + cpu.system) / latencies.length),
    nextSlot: slot,
  }),
);
