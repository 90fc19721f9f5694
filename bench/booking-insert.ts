// What the insert of a booking costs PostgreSQL, part by part: the PostgreSQL floor's loop
// (bench/pg-floor.mjs, a bare `pg` Pool of BENCH_CONNECTIONS clients, one autocommitted INSERT a
// booking) run against the service's own `reservations` table, right after the floor itself,
// four times, each with less of what that table carries:
// - as the migrations leave it (its triggers: the outbox event, the round-robin day count and
//   the availability version; its foreign keys; its indexes);
// - its triggers disabled;
// - its foreign keys dropped too;
// - its secondary indexes dropped too (left: the primary key and the exclusion constraint the
//   floor's table has).
// The database is a fresh one the service migrated and seeded (bench/booking-load.ts's types)
// and then stopped, so nothing but the inserts runs. Each row's ratio is its inserts a second over
// the floor's beside it; the service's own pool booking (bench/booking.ts) cannot go above the
// first row's, whatever the service does, since it makes that insert and more.
// Run: npm run build && npm run bench -- booking-insert   (PostgreSQL only; PG_ADMIN_URL as bench/harness.ts)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seed } from './booking-load.js';
import {
  type LoadRow,
  onDatabase,
  postgresFloor,
  startService,
  stop,
  vacuum,
  withPostgresDatabase,
} from './harness.js';

type Client = import('pg').Client;

/** Each case: what it takes off the table before it runs (cumulative), and its title. */
const CASES: Array<{ title: string; strip: (client: Client) => Promise<unknown> }> = [
  { title: 'reservations as migrated', strip: async () => undefined },
  {
    title: 'without its triggers',
    strip: (client) => client.query('alter table reservations disable trigger user'),
  },
  {
    title: 'without its triggers and foreign keys',
    strip: async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `select conname as name from pg_constraint where conrelid = 'reservations'::regclass and contype = 'f'`,
      );
      for (const { name } of rows) await client.query(`alter table reservations drop constraint ${name}`);
    },
  },
  {
    title: 'without its triggers, foreign keys and secondary indexes',
    strip: async (client) => {
      // Every index but the primary key's and the exclusion constraint's, which the floor's table has too.
      const { rows } = await client.query<{ name: string }>(
        `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
         where i.indrelid = 'reservations'::regclass
           and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`,
      );
      for (const { name } of rows) await client.query(`drop index ${name}`);
    },
  },
];

/** The first lane of the seeded distinct-slots type, as the service's pool booking takes it, and who books. */
async function target(databaseUrl: string, typeId: number) {
  return onDatabase(
    databaseUrl,
    () => {
      throw new Error('PostgreSQL only');
    },
    async (client) => {
      const { rows } = await client.query<{ organisationId: number; resourceId: number; userId: number }>(
        `select lane.organisation_id as "organisationId", lane.id as "resourceId",
           (select id from users order by id limit 1) as "userId"
         from resources lane where lane.resource_type_id = $1 and lane.capacity_lane_index = 1`,
        [typeId],
      );
      if (!rows[0]) throw new Error('no lane seeded');
      return { ...rows[0], resourceTypeId: typeId };
    },
  );
}

const rows: Array<{ title: string; floor: LoadRow; inserts: LoadRow }> = [];
await withPostgresDatabase('bench_booking_insert', async (databaseUrl) => {
  const service = await startService(
    { DATABASE_URL: databaseUrl },
    join(tmpdir(), `bench-insert-${process.pid}.log`),
  );
  let typeId: number;
  try {
    typeId = (await seed(service.base)).distinctType;
  } finally {
    await stop(service);
  }
  const lane = await target(databaseUrl, typeId);
  for (const { title, strip } of CASES) {
    await onDatabase(databaseUrl, () => undefined, strip);
    await vacuum(databaseUrl);
    const floor = await postgresFloor(databaseUrl, 'floor');
    await vacuum(databaseUrl);
    const inserts = await postgresFloor(databaseUrl, title, lane);
    rows.push({ title, floor, inserts });
    console.log(JSON.stringify({ title, floor: floor.rps, inserts: inserts.rps }));
  }
});

console.log(
  '\n| insert into | inserts/s | floor inserts/s beside it | ratio | client CPU µs an insert | PostgreSQL CPU µs an insert (floor) |',
);
console.log('|---|---|---|---|---|---|');
for (const { title, floor, inserts } of rows) {
  console.log(
    `| ${title} | ${inserts.rps} | ${floor.rps} | ${(inserts.rps / floor.rps).toFixed(2)} | ${inserts.serverCpuUs} | ${inserts.databaseCpuUs} (${floor.databaseCpuUs}) |`,
  );
}
