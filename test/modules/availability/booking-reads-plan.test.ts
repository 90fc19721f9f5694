import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { hotStatements } from '../../../src/db/compiled.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, createReservation, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

// Every booking reads its type with the lanes and, per lane, what is taken near the requested
// time and whether a hold has lapsed unmarked (booking-reads-repo.ts). PostgreSQL may run that
// prepared statement on a generic plan from its sixth run, made from a tiny table's statistics;
// both probes must stay on indexes that read only what they ask for (migration 0077) rather than
// every booking a lane ever had, which cost about 1.7 ms of PostgreSQL CPU a booking at 5,000.
let t: TestApp;
let owner: OrgOwner;
let typeId: number;
before(async () => {
  t = await createTestApp();
  owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
  const type = await createType(t.app, owner, { bookingMode: 'POOL' });
  typeId = type.id;
  await createResource(t.app, owner, { name: 'Desks', resourceTypeId: type.id, capacity: 3 });
  const monday = futureMonday();
  for (let hour = 9; hour < 15; hour++) {
    await createReservation(t.app, owner, {
      resourceTypeId: type.id,
      startTime: at(monday, hour),
      endTime: at(monday, hour + 1),
    });
  }
});
after(() => t.close());

/** The booking read's SQL, compiled by the bookings above. */
function bookingRead(): string {
  const found = hotStatements().filter((text) => text.includes('"lapsed"'));
  assert.equal(found.length, 1, 'exactly one hot statement probes lapsed holds');
  return found[0]!;
}

/** The query plan of the booking read, as the database runs it at its generic worst. */
async function planOfBookingRead(): Promise<string> {
  const text = bookingRead();
  const now = new Date().toISOString();
  const start = at(futureMonday(), 10);
  const end = at(futureMonday(), 11);
  const parameters = [now, start, end, start, now, owner.organisationId, typeId];
  if (t.db.dialect === 'sqlite') {
    const plan = await t.db.kysely.executeQuery(CompiledQuery.raw(`explain query plan ${text}`, parameters));
    return plan.rows.map((row) => (row as { detail: string }).detail).join('\n');
  }
  return t.db.kysely.connection().execute(async (connection) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
    try {
      await sql.raw(`prepare booking_read as ${text}`).execute(connection);
      const literals = parameters.map((value) => (typeof value === 'number' ? String(value) : `'${value}'`));
      const plan = await sql
        .raw<{ 'QUERY PLAN': string }>(`explain execute booking_read(${literals.join(', ')})`)
        .execute(connection);
      return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql`deallocate all`.execute(connection);
      await sql`reset plan_cache_mode`.execute(connection);
    }
  });
}

test("the booking read probes each lane's requested time and lapsed holds on their own indexes, whatever the statistics", async () => {
  const plan = await planOfBookingRead();
  // Only the lapsed probe can read this index: its predicate is the probe's statuses.
  assert.match(plan, /reservations_lane_lapsing_idx/, plan);
  // The busy-time probe reads the requested time's range of the lane's start times.
  assert.match(plan, /reservations_lane_time_idx/, plan);
  assert.doesNotMatch(plan, /reservations_lane_made_idx/, plan);
});
