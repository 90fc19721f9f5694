import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { customer } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { resourceAnswer, typeAnswer } from './availability-reference/answers.js';
import { generator, type Random, randomPolicy } from './random-schedules.js';

// The availability service must answer exactly as the engine did before issue 14 made
// it fast: random catalogues, schedules and reservations (both modes, buffers, minimum
// lengths, ranges across daylight-saving changes, cancelled reservations, lanes and
// single resources, daily caps), each HTTP answer compared byte for byte with the frozen reference
// in test/modules/availability/availability-reference/ (its daily caps added by issue 52).
// After every kind of change a cached answer could miss (bookings, cancellations,
// reservations written behind the service's back, resources, types, caps, the
// organisation's zone and schedule), they are compared again.
// AVAILABILITY_SEED=<n> replays one run.

const SEED = Number(process.env.AVAILABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Europe/Berlin and America/New_York change clocks in these weeks of 2027.
const AROUND = [
  Date.parse('2027-03-26T00:00:00Z'),
  Date.parse('2027-10-29T00:00:00Z'),
  Date.parse('2027-03-12T00:00:00Z'),
];
const ZONES = ['Europe/Berlin', 'UTC', 'America/New_York', 'Asia/Kolkata'];

describe('availability answers equal the pre-issue-14 engine on random data', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function get(owner: OrgOwner, url: string) {
    const r = await t.app.inject({ method: 'GET', url, headers: owner.auth });
    assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
    return r.body;
  }

  /** Every answer of the catalogue over `ranges`, compared with the reference. */
  async function compareAll(
    owner: OrgOwner,
    typeIds: number[],
    ranges: Array<[string, string]>,
    context: string,
  ) {
    let windows = 0;
    const resourceIds = (
      await t.db.kysely
        .selectFrom('resources')
        .select('id')
        .where('organisationId', '=', owner.organisationId)
        .execute()
    ).map((row) => row.id);
    for (const [from, to] of ranges) {
      const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
      for (const typeId of typeIds) {
        const body = await get(owner, `/api/resource-types/${typeId}/availability?${query}`);
        const expected = JSON.stringify(await typeAnswer(t.db, owner.organisationId, typeId, from, to));
        assert.equal(body, expected, `${context}: type ${typeId} ${from}..${to} (seed ${SEED})`);
        windows += (body.match(/"start"/g) ?? []).length;
      }
      for (const resourceId of resourceIds) {
        const body = await get(owner, `/api/resources/${resourceId}/availability?${query}`);
        const expected = JSON.stringify(
          await resourceAnswer(t.db, owner.organisationId, resourceId, from, to),
        );
        assert.equal(body, expected, `${context}: resource ${resourceId} ${from}..${to} (seed ${SEED})`);
      }
    }
    return windows;
  }

  /** Reservations written straight into the table: any length, overlapping, outside hours, cancelled. */
  async function insertReservations(
    r: Random,
    owner: OrgOwner,
    typeId: number,
    around: number,
    count: number,
  ) {
    const lanes = await t.db.kysely
      .selectFrom('resources')
      .select(['id', 'parentResourceId', 'capacity'])
      .where('resourceTypeId', '=', typeId)
      .execute();
    const holders = lanes.filter((lane) => lane.parentResourceId !== null || lane.capacity === 1);
    if (holders.length === 0) return;
    // Live reservations of one lane never overlap, buffers included (PostgreSQL refuses it): skip those that would.
    const live = (
      await t.db.kysely
        .selectFrom('reservations')
        .select(['resourceId', 'startTime', 'endTime', 'blockedUntil'])
        .where(
          'resourceId',
          'in',
          holders.map((h) => h.id),
        )
        .where('status', '!=', 'cancelled')
        .execute()
    ).map((row) => ({
      lane: row.resourceId,
      start: Date.parse(row.startTime),
      // A booking made through the API keeps its buffer after it (the constraint's range ends there).
      end: Date.parse(row.blockedUntil ?? row.endTime),
    }));
    const now = new Date().toISOString();
    let longest = 0;
    const rows = [];
    for (let i = 0; i < count; i++) {
      const start =
        around - 2 * DAY + r.int(0, 11 * 96) * 15 * MINUTE + (r.chance(0.1) ? r.int(1, 59) * 1000 : 0);
      const minutes = r.pick([15, 30, 45, 60, 60, 90, 120, 240, 600]);
      const lane = r.pick(holders).id;
      const status = r.pick(['confirmed', 'confirmed', 'pending_payment', 'cancelled'] as const);
      const end = start + minutes * MINUTE;
      if (status !== 'cancelled') {
        if (live.some((l) => l.lane === lane && l.start < end && l.end > start)) continue;
        live.push({ lane, start, end });
      }
      longest = Math.max(longest, minutes);
      rows.push({
        organisationId: owner.organisationId,
        resourceTypeId: typeId,
        resourceId: lane,
        status,
        startTime: new Date(start).toISOString(),
        endTime: new Date(end).toISOString(),
        customerName: 'Seed',
        customerEmail: 'seed@example.test',
        customerPhone: null,
        customerInfo: '{}',
        notes: null,
        priceAmount: null,
        priceCurrency: null,
        source: 'api' as const,
        createdByUserId: null,
        createdAt: now,
        updatedAt: now,
      });
    }
    if (rows.length > 0) await t.db.kysely.insertInto('reservations').values(rows).execute();
    // Written behind the service's back: record their length as a booking would.
    await t.db.kysely
      .updateTable('resourceTypes')
      .set({ longestReservationMinutes: Math.max(longest, 600) })
      .where('id', '=', typeId)
      .execute();
  }

  function randomRanges(r: Random, around: number): Array<[string, string]> {
    const ranges: Array<[string, string]> = [];
    for (let i = 0; i < 3; i++) {
      const from = around - r.int(0, 2) * DAY + r.pick([0, 0, 7 * HOUR + 13 * MINUTE, 22 * HOUR]);
      const to = from + r.pick([1, 3, 5, 9]) * DAY + r.pick([0, 30 * MINUTE]);
      ranges.push([new Date(from).toISOString(), new Date(to).toISOString()]);
    }
    return ranges;
  }

  let seenInRun = 0;
  for (let scenario = 0; scenario < 4; scenario++) {
    test(`scenario ${scenario + 1} (seed ${SEED})`, async () => {
      const r = generator(SEED + scenario * 7919);
      const owner = await ownerWithOrganisation(t.app, {
        timezone: r.pick(ZONES),
        ...(r.chance(0.5) ? { schedulePolicy: randomPolicy(r) } : {}),
      });
      const around = r.pick(AROUND);
      const typeIds: number[] = [];
      for (let k = 0; k < 3; k++) {
        const type = await createType(t.app, owner, {
          name: `Type ${k}`,
          bookingMode: r.pick(['SINGLE_RESOURCE', 'POOL', 'BOTH']),
          minBookingDuration: r.pick([15, 30, 60, 90]),
          bufferTime: r.pick([0, 0, 5, 15, 30]),
          schedulePolicy: randomPolicy(r, r.pick(['continuous', 'continuous', 'shifts', undefined] as const)),
        });
        typeIds.push(type.id);
        for (let n = r.int(1, 3); n > 0; n--) {
          const override = r.chance(0.3)
            ? { schedulePolicy: randomPolicy(r, r.pick(['continuous', 'shifts'])) }
            : {};
          const resource = await createResource(t.app, owner, {
            name: `Resource ${k}.${n}`,
            resourceTypeId: type.id,
            capacity: r.pick([1, 1, 2, 3, 6]),
            ...override,
            ...(r.chance(0.3) ? { maxBookingsPerDay: r.pick([1, 2, 3]) } : {}),
          });
          if (r.chance(0.15)) {
            const off = await t.app.inject({
              method: 'PATCH',
              url: `/api/resources/${resource.id}`,
              headers: owner.auth,
              payload: { isActive: false },
            });
            assert.equal(off.statusCode, 200, off.body);
          }
        }
        await insertReservations(r, owner, type.id, around, r.int(20, 120));
      }
      const ranges = randomRanges(r, around);
      // One random scenario may answer nothing at all (every resource off, say); the run as a
      // whole must compare something (the last test).
      seenInRun += await compareAll(owner, typeIds, ranges, 'seeded');

      // Bookings through the API where they fit, and cancellations.
      const booked: number[] = [];
      for (let i = 0; i < 12; i++) {
        const start = around - DAY + r.int(0, 4 * 24) * HOUR;
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/reservations',
          headers: owner.auth,
          payload: {
            resourceTypeId: r.pick(typeIds),
            startTime: new Date(start).toISOString(),
            endTime: new Date(start + r.pick([1, 2]) * HOUR).toISOString(),
            customer,
          },
        });
        assert.ok([201, 400, 409].includes(response.statusCode), response.body);
        if (response.statusCode === 201) booked.push(response.json().id);
      }
      await compareAll(owner, typeIds, ranges, 'after bookings');
      for (const id of booked.filter(() => r.chance(0.5))) {
        const cancel = await t.app.inject({
          method: 'POST',
          url: `/api/reservations/${id}/cancel`,
          headers: owner.auth,
        });
        assert.equal(cancel.statusCode, 200, cancel.body);
      }
      await compareAll(owner, typeIds, ranges, 'after cancellations');

      // Behind the service's back: reservations inserted, moved and deleted.
      await insertReservations(r, owner, typeIds[0]!, around, 30);
      await t.db.kysely
        .updateTable('reservations')
        .set({ status: 'cancelled' })
        .where('organisationId', '=', owner.organisationId)
        .where('id', 'in', (await reservationIds(owner)).filter(() => r.chance(0.2)).concat(0))
        .execute();
      await t.db.kysely
        .deleteFrom('reservations')
        .where('id', 'in', (await reservationIds(owner)).filter(() => r.chance(0.2)).concat(0))
        .execute();
      await compareAll(owner, typeIds, ranges, 'after direct writes');

      // The catalogue and the organisation change.
      const typeId = r.pick(typeIds);
      const patchType = await t.app.inject({
        method: 'PATCH',
        url: `/api/resource-types/${typeId}`,
        headers: owner.auth,
        payload: {
          bufferTime: r.pick([0, 10, 45]),
          minBookingDuration: r.pick([15, 120]),
          schedulePolicy: randomPolicy(r, r.pick(['continuous', 'shifts'])),
        },
      });
      assert.equal(patchType.statusCode, 200, patchType.body);
      const resource = await createResource(t.app, owner, {
        name: 'Late',
        resourceTypeId: typeId,
        capacity: 2,
      });
      // A cap set, changed or lifted on one of the resources.
      const [capped] = await t.db.kysely
        .selectFrom('resources')
        .select('id')
        .where('organisationId', '=', owner.organisationId)
        .where('parentResourceId', 'is', null)
        .where('id', '!=', resource.id)
        .orderBy('id')
        .offset(r.int(0, 2))
        .limit(1)
        .execute();
      if (capped) {
        const cap = await t.app.inject({
          method: 'PATCH',
          url: `/api/resources/${capped.id}`,
          headers: owner.auth,
          payload: { maxBookingsPerDay: r.pick([1, 2, null]) },
        });
        assert.equal(cap.statusCode, 200, cap.body);
      }
      await compareAll(owner, typeIds, ranges, 'after type, resource and cap changes');
      const patchResource = await t.app.inject({
        method: 'PATCH',
        url: `/api/resources/${resource.id}`,
        headers: owner.auth,
        payload: { isActive: false },
      });
      assert.equal(patchResource.statusCode, 200, patchResource.body);
      const patchOrg = await t.app.inject({
        method: 'PATCH',
        url: `/api/organisations/${owner.organisationId}`,
        headers: owner.auth,
        payload: {
          timezone: r.pick(ZONES.filter((zone) => zone !== 'UTC')),
          schedulePolicy: randomPolicy(r),
        },
      });
      assert.equal(patchOrg.statusCode, 200, patchOrg.body);
      await compareAll(owner, typeIds, ranges, 'after organisation changes');
    });
  }

  test(`the run's scenarios answered some windows or slots (seed ${SEED})`, () => {
    assert.ok(seenInRun > 0, 'every scenario answered nothing: the comparison saw nothing');
  });

  async function reservationIds(owner: OrgOwner) {
    const rows = await t.db.kysely
      .selectFrom('reservations')
      .select('id')
      .where('organisationId', '=', owner.organisationId)
      .execute();
    return rows.map((row) => row.id);
  }
});
