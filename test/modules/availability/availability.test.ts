import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';

const weekdays = (openTime: string, closeTime: string, days = [0, 1, 2, 3, 4, 5, 6]) =>
  days.map((dayOfWeek) => ({ dayOfWeek, openTime, closeTime }));

describe('availability engine', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function availability(auth: Record<string, string>, path: string, from: string, to: string) {
    const r = await t.app.inject({
      method: 'GET',
      url: `${path}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      headers: auth,
    });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  }

  test('continuous: windows inside opening hours, buffers kept clear, short gaps dropped', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      minBookingDuration: 60,
      bufferTime: 30,
      schedulePolicy: { operatingHours: weekdays('09:00', '17:00', [1, 2, 3, 4, 5]) },
    });
    const res = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    assert.equal(
      (await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 11), endTime: at(mon, 12) }))
        .statusCode,
      201,
    );
    // 09:00-10:30 free (ends at the buffer), 12:30-17:00 free.
    const day = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      at(mon, 0),
      at(mon, 24),
    );
    assert.equal(day.availabilityMode, 'continuous');
    assert.equal(day.timezone, 'UTC');
    assert.deepEqual(day.windows, [
      { start: at(mon, 9), end: at(mon, 10, 30), freeLanes: 1, totalLanes: 1 },
      { start: at(mon, 12, 30), end: at(mon, 17), freeLanes: 1, totalLanes: 1 },
    ]);
    // A booking inside the buffer, outside hours, or too short is refused; exactly at the buffer edge fits.
    for (const [start, end] of [
      [at(mon, 12, 15), at(mon, 13, 15)],
      [at(mon, 16, 30), at(mon, 17, 30)],
      [at(mon, 14), at(mon, 14, 30)],
      [at(mon, 7), at(mon, 8)],
    ]) {
      const r = await book(t.app, owner, { resourceId: res.id, startTime: start, endTime: end });
      assert.equal(r.statusCode, 409, `${start}-${end}`);
      assert.equal(r.json().error.code, 'SLOT_UNAVAILABLE');
    }
    assert.equal(
      (await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 12, 30), endTime: at(mon, 13, 30) }))
        .statusCode,
      201,
    );
    // Free gap 10:30..11:00-buffer: nothing new. Weekend closed.
    const weekend = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      at(mon, -48),
      at(mon, 0),
    );
    assert.deepEqual(weekend.windows, []);
  });

  test('a reservation stored in another form of ISO text (written by hand) takes its time, beside stored ones', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      minBookingDuration: 60,
      schedulePolicy: { operatingHours: weekdays('08:00', '18:00') },
    });
    const res = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    assert.equal(
      (await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 9), endTime: at(mon, 10) }))
        .statusCode,
      201,
    );
    const day = mon.toISOString().slice(0, 10);
    const now = new Date().toISOString();
    // Without milliseconds, and with an offset: not the 24 characters the service itself stores.
    await t.db.kysely
      .insertInto('reservations')
      .values(
        [
          [`${day}T12:00:00Z`, `${day}T13:00:00Z`],
          [`${day}T15:00:00.000+00:00`, `${day}T16:00:00.000+00:00`],
        ].map(([startTime, endTime]) => ({
          organisationId: owner.organisationId,
          resourceTypeId: type.id,
          resourceId: res.id,
          status: 'confirmed' as const,
          startTime: startTime!,
          endTime: endTime!,
          customerName: 'By hand',
          customerEmail: 'by-hand@example.test',
          customerInfo: '{}',
          source: 'api' as const,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .execute();
    const answer = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      at(mon, 0),
      at(mon, 24),
    );
    assert.deepEqual(
      answer.windows.map((w: { start: string; end: string }) => [w.start, w.end]),
      [
        [at(mon, 8), at(mon, 9)],
        [at(mon, 10), at(mon, 12)],
        [at(mon, 13), at(mon, 15)],
        [at(mon, 16), at(mon, 18)],
      ],
    );
    for (const hour of [12, 15]) {
      const r = await book(t.app, owner, {
        resourceId: res.id,
        startTime: at(mon, hour),
        endTime: at(mon, hour + 1),
      });
      assert.equal(r.statusCode, 409, `${hour}:00`);
    }
  });

  test('a gap shorter than the minimum duration is not a window; a stretch crossing the range edge counts whole', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { minBookingDuration: 90 });
    const res = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 9), endTime: at(mon, 10, 30) });
    await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 11, 30), endTime: at(mon, 13) });
    const day = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      at(mon, 8),
      at(mon, 14),
    );
    // 10:30-11:30 is 60 minutes: too short. 08:00-09:00 and 13:00-14:00 are the visible parts of longer stretches.
    assert.deepEqual(day.windows, [
      { start: at(mon, 8), end: at(mon, 9), freeLanes: 1, totalLanes: 1 },
      { start: at(mon, 13), end: at(mon, 14), freeLanes: 1, totalLanes: 1 },
    ]);
  });

  test('lanes: a parent is flattened into its lanes with the free count per window', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { minBookingDuration: 30 });
    const parent = await createResource(t.app, owner, { name: 'Desk', resourceTypeId: type.id, capacity: 3 });
    const mon = futureMonday();
    await book(t.app, owner, { resourceId: parent.id, startTime: at(mon, 10), endTime: at(mon, 12) });
    await book(t.app, owner, { resourceId: parent.id, startTime: at(mon, 11), endTime: at(mon, 13) });
    const day = await availability(
      owner.auth,
      `/api/resources/${parent.id}/availability`,
      at(mon, 9),
      at(mon, 14),
    );
    assert.deepEqual(day.windows, [
      { start: at(mon, 9), end: at(mon, 10), freeLanes: 3, totalLanes: 3 },
      { start: at(mon, 10), end: at(mon, 11), freeLanes: 2, totalLanes: 3 },
      { start: at(mon, 11), end: at(mon, 12), freeLanes: 1, totalLanes: 3 },
      { start: at(mon, 12), end: at(mon, 13), freeLanes: 2, totalLanes: 3 },
      { start: at(mon, 13), end: at(mon, 14), freeLanes: 3, totalLanes: 3 },
    ]);
    // A third overlapping booking still fits (lane 3); a fourth does not.
    assert.equal(
      (await book(t.app, owner, { resourceId: parent.id, startTime: at(mon, 11), endTime: at(mon, 12) }))
        .statusCode,
      201,
    );
    const full = await book(t.app, owner, {
      resourceId: parent.id,
      startTime: at(mon, 11),
      endTime: at(mon, 11, 30),
    });
    assert.equal(full.statusCode, 409);
    const after = await availability(
      owner.auth,
      `/api/resources/${parent.id}/availability`,
      at(mon, 11),
      at(mon, 12),
    );
    assert.deepEqual(after.windows, []);
  });

  test('shifts: exactly the configured slots, each free or taken, with lane counts', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      availabilityMode: 'shifts',
      bufferTime: 60,
      schedulePolicy: {
        shiftSchedule: [
          {
            dayOfWeek: 1,
            slots: [
              { startTime: '09:00', endTime: '12:00' },
              { startTime: '12:00', endTime: '15:00' },
            ],
          },
        ],
      },
    });
    const parent = await createResource(t.app, owner, { name: 'Crew', resourceTypeId: type.id, capacity: 2 });
    const mon = futureMonday();
    const notASlot = await book(t.app, owner, {
      resourceId: parent.id,
      startTime: at(mon, 9),
      endTime: at(mon, 11),
    });
    assert.equal(notASlot.statusCode, 409);
    for (let i = 0; i < 2; i++) {
      assert.equal(
        (await book(t.app, owner, { resourceId: parent.id, startTime: at(mon, 9), endTime: at(mon, 12) }))
          .statusCode,
        201,
      );
    }
    assert.equal(
      (await book(t.app, owner, { resourceId: parent.id, startTime: at(mon, 9), endTime: at(mon, 12) }))
        .statusCode,
      409,
    );
    const day = await availability(
      owner.auth,
      `/api/resources/${parent.id}/availability`,
      at(mon, 0),
      at(mon, 24),
    );
    assert.equal(day.availabilityMode, 'shifts');
    assert.equal(day.windows, undefined);
    assert.deepEqual(day.slots, [
      { start: at(mon, 9), end: at(mon, 12), available: false, freeLanes: 0, totalLanes: 2 },
      { start: at(mon, 12), end: at(mon, 15), available: true, freeLanes: 2, totalLanes: 2 },
    ]);
    // Shift slots are matched exactly; the buffer does not apply between adjacent shifts.
    assert.equal(
      (await book(t.app, owner, { resourceId: parent.id, startTime: at(mon, 12), endTime: at(mon, 15) }))
        .statusCode,
      201,
    );
  });

  test('DST in Europe/Berlin: opening hours stay at 09:00 local across the October change', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'Europe/Berlin' });
    const type = await createType(t.app, owner, {
      schedulePolicy: { operatingHours: weekdays('09:00', '17:00') },
    });
    const res = await createResource(t.app, owner, { name: 'Berlin', resourceTypeId: type.id });
    // 2026-10-25 03:00 CEST -> 02:00 CET.
    const r = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      '2026-10-24T00:00:00Z',
      '2026-10-27T00:00:00Z',
    );
    assert.deepEqual(
      r.windows.map((w: { start: string; end: string }) => [w.start, w.end]),
      [
        ['2026-10-24T07:00:00.000Z', '2026-10-24T15:00:00.000Z'],
        ['2026-10-25T08:00:00.000Z', '2026-10-25T16:00:00.000Z'],
        ['2026-10-26T08:00:00.000Z', '2026-10-26T16:00:00.000Z'],
      ],
    );
    // And the spring change: 2027-03-28 02:00 CET -> 03:00 CEST.
    const spring = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      '2027-03-27T00:00:00Z',
      '2027-03-29T00:00:00Z',
    );
    assert.deepEqual(
      spring.windows.map((w: { start: string }) => w.start),
      ['2027-03-27T08:00:00.000Z', '2027-03-28T07:00:00.000Z'],
    );
  });

  test('DST in America/New_York: shift slots keep local wall-clock times across the March change', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'America/New_York' });
    const type = await createType(t.app, owner, {
      availabilityMode: 'shifts',
      schedulePolicy: {
        shiftSchedule: [0, 1, 6].map((dayOfWeek) => ({
          dayOfWeek,
          slots: [
            { startTime: '01:30', endTime: '03:30' },
            { startTime: '09:00', endTime: '10:00' },
          ],
        })),
      },
    });
    const res = await createResource(t.app, owner, { name: 'NYC', resourceTypeId: type.id });
    // 2027-03-14 02:00 EST -> 03:00 EDT; Saturday the 13th is EST (UTC-5), Monday the 15th EDT (UTC-4).
    const r = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      '2027-03-13T00:00:00Z',
      '2027-03-16T12:00:00Z',
    );
    assert.deepEqual(
      r.slots.map((s: { start: string; end: string }) => [s.start, s.end]),
      [
        ['2027-03-13T06:30:00.000Z', '2027-03-13T08:30:00.000Z'],
        ['2027-03-13T14:00:00.000Z', '2027-03-13T15:00:00.000Z'],
        // 01:30 EST to 03:30 EDT is one real hour on the change night.
        ['2027-03-14T06:30:00.000Z', '2027-03-14T07:30:00.000Z'],
        ['2027-03-14T13:00:00.000Z', '2027-03-14T14:00:00.000Z'],
        ['2027-03-15T05:30:00.000Z', '2027-03-15T07:30:00.000Z'],
        ['2027-03-15T13:00:00.000Z', '2027-03-15T14:00:00.000Z'],
      ],
    );
  });

  test('continuous without opening hours across a DST night is one unbroken window', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'America/New_York' });
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Always', resourceTypeId: type.id });
    const r = await availability(
      owner.auth,
      `/api/resources/${res.id}/availability`,
      '2026-10-31T00:00:00Z',
      '2026-11-03T00:00:00Z',
    );
    assert.deepEqual(r.windows, [
      { start: '2026-10-31T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z', freeLanes: 1, totalLanes: 1 },
    ]);
  });

  test('resource type availability follows the booking mode', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const mon = futureMonday();
    const make = async (bookingMode: 'SINGLE_RESOURCE' | 'POOL' | 'BOTH') => {
      const type = await createType(t.app, owner, { bookingMode, minBookingDuration: 60 });
      const a = await createResource(t.app, owner, {
        name: `${bookingMode} A`,
        resourceTypeId: type.id,
        capacity: 2,
      });
      const b = await createResource(t.app, owner, { name: `${bookingMode} B`, resourceTypeId: type.id });
      return { type, a, b };
    };
    const pool = await make('POOL');
    const single = await make('SINGLE_RESOURCE');
    const both = await make('BOTH');
    assert.equal(
      (
        await book(t.app, owner, {
          resourceTypeId: pool.type.id,
          startTime: at(mon, 10),
          endTime: at(mon, 11),
        })
      ).statusCode,
      201,
    );
    assert.equal(
      (
        await book(t.app, owner, {
          resourceTypeId: both.type.id,
          startTime: at(mon, 10),
          endTime: at(mon, 11),
        })
      ).statusCode,
      201,
    );

    const p = await availability(
      owner.auth,
      `/api/resource-types/${pool.type.id}/availability`,
      at(mon, 9),
      at(mon, 12),
    );
    assert.equal(p.bookingMode, 'POOL');
    assert.equal(p.resources, undefined);
    assert.deepEqual(p.pool.windows, [
      { start: at(mon, 9), end: at(mon, 10), freeLanes: 3, totalLanes: 3 },
      { start: at(mon, 10), end: at(mon, 11), freeLanes: 2, totalLanes: 3 },
      { start: at(mon, 11), end: at(mon, 12), freeLanes: 3, totalLanes: 3 },
    ]);
    const s = await availability(
      owner.auth,
      `/api/resource-types/${single.type.id}/availability`,
      at(mon, 9),
      at(mon, 12),
    );
    assert.equal(s.pool, undefined);
    assert.deepEqual(
      s.resources.map((r: { resourceId: number; windows: Array<{ totalLanes: number }> }) => [
        r.resourceId,
        r.windows[0]!.totalLanes,
      ]),
      [
        [single.a.id, 2],
        [single.b.id, 1],
      ],
    );
    const b = await availability(
      owner.auth,
      `/api/resource-types/${both.type.id}/availability`,
      at(mon, 9),
      at(mon, 12),
    );
    assert.ok(b.pool && b.resources);
    assert.equal(b.pool.windows[1].freeLanes, 2);

    const poolWithResource = await book(t.app, owner, {
      resourceId: pool.a.id,
      startTime: at(mon, 13),
      endTime: at(mon, 14),
    });
    assert.equal(poolWithResource.statusCode, 400);
    const singleWithType = await book(t.app, owner, {
      resourceTypeId: single.type.id,
      startTime: at(mon, 13),
      endTime: at(mon, 14),
    });
    assert.equal(singleWithType.statusCode, 400);
  });

  test('pool booking allocates only what pool availability counts', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { bookingMode: 'POOL' });
    await createResource(t.app, owner, { name: 'Continuous', resourceTypeId: type.id });
    await createResource(t.app, owner, {
      name: 'Shifts',
      resourceTypeId: type.id,
      schedulePolicy: {
        availabilityMode: 'shifts',
        shiftSchedule: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
          dayOfWeek,
          slots: [{ startTime: '09:00', endTime: '10:00' }],
        })),
      },
    });
    const mon = futureMonday();
    const slot = { resourceTypeId: type.id, startTime: at(mon, 9), endTime: at(mon, 10) };
    assert.equal((await book(t.app, owner, slot)).statusCode, 201);
    const pool = await availability(
      owner.auth,
      `/api/resource-types/${type.id}/availability`,
      at(mon, 9),
      at(mon, 10),
    );
    assert.deepEqual(pool.pool.windows, [], 'the pool shows nothing free');
    assert.equal((await book(t.app, owner, slot)).statusCode, 409, 'so the pool books nothing more');
  });

  test('range validation: at most 62 days, to after from, zone required', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'R', resourceTypeId: type.id });
    for (const query of [
      'from=2027-01-01T00:00:00Z&to=2027-03-05T00:00:00Z',
      'from=2027-01-02T00:00:00Z&to=2027-01-01T00:00:00Z',
      'from=2027-01-01T00:00:00&to=2027-01-02T00:00:00Z',
      'from=2027-01-01T00:00:00Z',
      'from=2027-01-01T00:00:00Z&to=2027-01-02T00:00:00Z&extra=1',
    ]) {
      const r = await t.app.inject({
        method: 'GET',
        url: `/api/resources/${res.id}/availability?${query}`,
        headers: owner.auth,
      });
      assert.equal(r.statusCode, 400, query);
      assert.equal(r.json().error.code, 'VALIDATION_FAILED');
    }
    const ok = await t.app.inject({
      method: 'GET',
      url: `/api/resources/${res.id}/availability?from=2027-01-01T00:00:00Z&to=2027-03-04T00:00:00Z`,
      headers: owner.auth,
    });
    assert.equal(ok.statusCode, 200, '62 days exactly');
  });
});
