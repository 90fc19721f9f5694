import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus, validationDetails } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { PRIVACY, parseExport } from '../../helpers/privacy.js';
import { feedReader } from '../outbox/helpers.js';

/**
 * Collective bookings (DECISIONS.md "Teams"): one reservation over 2-5 resources, all or
 * nothing, its parts following it through cancel, release and reschedule.
 */
describe('collective bookings', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let rooms: number[];
  let people: number[];
  let pooled: number;
  /** Each call a fresh hour of the test's Monday. */
  let hour = 0;
  const nextHour = () => {
    hour += 1;
    const base = futureMonday();
    return { startTime: at(base, hour), endTime: at(base, hour + 1) };
  };
  const reservation = async (id: number) =>
    expectStatus(await as(t.app, owner).get(`/api/reservations/${id}`), 200);

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const room = await createType(t.app, owner, { name: 'Room', bookingMode: 'SINGLE_RESOURCE' });
    const person = await createType(t.app, owner, { name: 'Advisor', bookingMode: 'BOTH' });
    const pool = await createType(t.app, owner, { name: 'Desk', bookingMode: 'POOL' });
    rooms = [];
    people = [];
    for (const name of ['Blue', 'Green'])
      rooms.push((await createResource(t.app, owner, { name, resourceTypeId: room.id })).id);
    for (const name of ['Ada', 'Alan', 'Barbara'])
      people.push((await createResource(t.app, owner, { name, resourceTypeId: person.id })).id);
    pooled = (await createResource(t.app, owner, { name: 'Desk 1', resourceTypeId: pool.id })).id;
  });
  after(() => t.close());

  test('one reservation takes every resource: answered with resourceIds, listed by each, their time taken', async () => {
    const time = nextHour();
    const ids = [people[0]!, rooms[0]!, people[1]!];
    const booked = expectStatus(await book(t.app, owner, { resourceIds: ids, ...time }), 201);
    assert.deepEqual(booked.resourceIds, ids);
    assert.equal(booked.resourceId, ids[0]);
    assert.equal(booked.status, 'confirmed');
    assert.deepEqual((await reservation(booked.id)).resourceIds, ids);
    for (const id of ids) {
      const listed = expectStatus(await as(t.app, owner).get(`/api/reservations?resourceId=${id}`), 200);
      assert.deepEqual(
        listed.items.map((r: { id: number }) => r.id),
        [booked.id],
        `listed by resource ${id}`,
      );
      expectError(await book(t.app, owner, { resourceId: id, ...time }), 409, 'SLOT_UNAVAILABLE');
    }
    const all = expectStatus(await as(t.app, owner).get('/api/reservations'), 200);
    assert.equal(
      all.items.filter((r: { id: number }) => r.id === booked.id).length,
      1,
      'parts are not listed',
    );
    // A resource booked alone answers resourceIds of one.
    const single = expectStatus(await book(t.app, owner, { resourceId: people[2]!, ...time }), 201);
    assert.deepEqual(single.resourceIds, [people[2]]);
  });

  test('all or nothing: one busy resource refuses with HOST_UNAVAILABLE naming it and why, alternatives when all are free', async () => {
    const time = nextHour();
    expectStatus(await book(t.app, owner, { resourceId: rooms[1]!, ...time }), 201);
    const error = expectError(
      await book(t.app, owner, { resourceIds: [people[2]!, rooms[1]!], ...time }),
      409,
      'HOST_UNAVAILABLE',
    ) as unknown as { message: string; details: { code: string; resourceId: number }[] };
    assert.match(error.message, new RegExp(`resource ${rooms[1]}`));
    assert.deepEqual(
      error.details.map((d) => [d.resourceId, d.code]),
      [[rooms[1], 'BOOKED']],
    );
    const body = (await book(t.app, owner, { resourceIds: [people[2]!, rooms[1]!], ...time })).json();
    const offered = body.error.alternatives as { startTime: string; resourceIds: number[] }[];
    assert.ok(offered.length > 0, 'alternatives offered');
    assert.deepEqual(offered[0]!.resourceIds, [people[2], rooms[1]]);
    // The offered time books.
    const first = offered[0]!;
    expectStatus(
      await book(t.app, owner, {
        resourceIds: [people[2]!, rooms[1]!],
        startTime: first.startTime,
        endTime: new Date(Date.parse(first.startTime) + 3_600_000).toISOString(),
      }),
      201,
    );
    // Nothing of the refused booking was written: the free resource still books alone.
    expectStatus(await book(t.app, owner, { resourceId: people[2]!, ...time }), 201);
  });

  test('cancel and release free every resource; a hold keeps them all', async () => {
    const time = nextHour();
    const ids = [rooms[0]!, people[0]!];
    const booked = expectStatus(await book(t.app, owner, { resourceIds: ids, ...time }), 201);
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`, {}), 200);
    const later = nextHour();
    const held = expectStatus(
      await as(t.app, owner).post('/api/reservations/holds', { resourceIds: ids, ...later, customer }),
      201,
    );
    assert.equal(held.status, 'held');
    expectError(await book(t.app, owner, { resourceId: people[0]!, ...later }), 409, 'SLOT_UNAVAILABLE');
    expectStatus(await as(t.app, owner).post(`/api/reservations/${held.id}/release`, {}), 200);
    for (const id of ids) {
      expectStatus(await book(t.app, owner, { resourceId: id, ...time }), 201);
      expectStatus(await book(t.app, owner, { resourceId: id, ...later }), 201);
    }
  });

  test('a dry run answers the reservation it would make and writes nothing', async () => {
    const time = nextHour();
    const ids = [rooms[0]!, people[1]!];
    const dry = expectStatus(
      await book(t.app, owner, { resourceIds: ids, ...time }, { query: 'dryRun=true' }),
      200,
    );
    assert.equal(dry.wouldSucceed, true);
    assert.deepEqual(dry.reservation.resourceIds, ids);
    expectStatus(await book(t.app, owner, { resourceIds: ids, ...time }), 201);
  });

  test('one event per change of a collective reservation, none for its parts', async () => {
    const reader = feedReader(t.app, owner, `/api/organisations/${owner.organisationId}/events`);
    await reader.next();
    const booked = expectStatus(
      await book(t.app, owner, { resourceIds: [rooms[1]!, people[1]!], ...nextHour() }),
      201,
    );
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`, {}), 200);
    const events = await reader.next();
    assert.deepEqual(
      events.map((e) => [e.type, e.data.id, e.data.resourceIds]),
      [
        ['reservation.created', booked.id, [rooms[1], people[1]]],
        ['reservation.cancelled', booked.id, [rooms[1], people[1]]],
      ],
    );
  });

  test('GET /api/availability?resourceIds= answers the windows every resource is free', async () => {
    const base = futureMonday();
    const day = { from: at(base, 24 * 7), to: at(base, 24 * 8) };
    expectStatus(
      await book(t.app, owner, {
        resourceId: rooms[0]!,
        startTime: at(base, 24 * 7 + 10),
        endTime: at(base, 24 * 7 + 11),
      }),
      201,
    );
    expectStatus(
      await book(t.app, owner, {
        resourceId: people[2]!,
        startTime: at(base, 24 * 7 + 14),
        endTime: at(base, 24 * 7 + 15),
      }),
      201,
    );
    const query = `resourceIds=${rooms[0]},${people[2]}&from=${day.from}&to=${day.to}`;
    const common = expectStatus(await as(t.app, owner).get(`/api/availability?${query}`), 200);
    const covers = (iso: string) =>
      common.windows.some(
        (w: { startTime: string; endTime: string }) =>
          Date.parse(w.startTime) <= Date.parse(iso) && Date.parse(iso) < Date.parse(w.endTime),
      );
    assert.equal(covers(at(base, 24 * 7 + 10, 30)), false, "the room's booking");
    assert.equal(covers(at(base, 24 * 7 + 14, 30)), false, "the advisor's booking");
    assert.equal(covers(at(base, 24 * 7 + 12)), true, 'both free at noon');
    for (const [bad, field] of [
      [`resourceIds=${rooms[0]}&from=${day.from}&to=${day.to}`, 'resourceIds'],
      [`resourceIds=${rooms[0]},${rooms[0]}&from=${day.from}&to=${day.to}`, 'resourceIds'],
      [`resourceIds=1,2,3,4,5,6&from=${day.from}&to=${day.to}`, 'resourceIds'],
      [`resourceIds=a,b&from=${day.from}&to=${day.to}`, 'resourceIds'],
      [`resourceIds=${rooms[0]},${people[0]}&from=${day.to}&to=${day.from}`, 'to'],
    ] as const) {
      const details = validationDetails(await as(t.app, owner).get(`/api/availability?${bad}`));
      assert.ok(
        details.some((d) => d.startsWith(`querystring.${field}:`)),
        `${bad}: ${details}`,
      );
    }
  });

  test('bad input: 400 naming resourceIds', async () => {
    const other = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const otherType = await createType(t.app, other, { name: 'Theirs' });
    const theirs = (await createResource(t.app, other, { name: 'Theirs', resourceTypeId: otherType.id })).id;
    const time = nextHour();
    for (const body of [
      { resourceIds: [rooms[0], rooms[0]] },
      { resourceIds: [rooms[0]] },
      { resourceIds: [rooms[0], rooms[1], people[0], people[1], people[2], pooled] },
      { resourceIds: [rooms[0], people[0]], resourceId: rooms[0] },
      { resourceIds: [rooms[0], people[0]], resourceTypeId: 1 },
      { resourceIds: [rooms[0], theirs] },
      { resourceIds: [rooms[0], pooled] },
    ]) {
      const details = validationDetails(await book(t.app, owner, { ...body, ...time }));
      assert.ok(
        details.some((d) => d.startsWith('body.resourceIds') || d.startsWith('resourceIds')),
        `${JSON.stringify(body)}: ${details}`,
      );
    }
  });

  test('racing bookers of overlapping sets: exactly one wins', async () => {
    const time = nextHour();
    // Every two of these sets share a resource.
    const [a, b, c, d] = [rooms[0]!, people[0]!, rooms[1]!, people[1]!];
    const sets = [
      [a, b],
      [b, c],
      [c, a],
      [d, a, b],
      [b, d, c],
    ];
    const answers = await Promise.all(
      [...sets, ...sets].map((resourceIds) => book(t.app, owner, { resourceIds, ...time })),
    );
    const codes = answers.map((a) => a.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 1, `codes ${codes}`);
    assert.ok(
      codes.every((c) => c === 201 || c === 409),
      `codes ${codes}`,
    );
  });

  test('reschedule moves every resource, to a new time or a new set; a busy one refuses and nothing moves', async () => {
    const time = nextHour();
    const ids = [people[0]!, rooms[0]!];
    const booked = expectStatus(await book(t.app, owner, { resourceIds: ids, ...time }), 201);
    const later = nextHour();
    const move = (body: Record<string, unknown>, query = '') =>
      as(t.app, owner).post(`/api/reservations/${booked.id}/reschedule${query}`, body);
    const dry = expectStatus(await move(later, '?dryRun=true'), 200);
    assert.equal(dry.wouldSucceed, true);
    assert.equal(dry.reservation.startTime, later.startTime);
    assert.equal((await reservation(booked.id)).startTime, time.startTime, 'a dry run moves nothing');
    const moved = expectStatus(await move(later), 200);
    assert.equal(moved.startTime, later.startTime);
    assert.deepEqual(moved.resourceIds, ids);
    // The old time is free on both, the new one taken on both.
    for (const id of ids) {
      expectError(await book(t.app, owner, { resourceId: id, ...later }), 409, 'SLOT_UNAVAILABLE');
      expectStatus(await book(t.app, owner, { resourceId: id, ...time }), 201);
    }
    // An overlapping move (half an hour on) is not blocked by its own time.
    const half = {
      startTime: new Date(Date.parse(later.startTime) + 1_800_000).toISOString(),
      endTime: new Date(Date.parse(later.endTime) + 1_800_000).toISOString(),
    };
    expectStatus(await move(half), 200);
    // Another set: the room swapped for another room.
    const swapped = expectStatus(await move({ ...half, resourceIds: [people[0]!, rooms[1]!] }), 200);
    assert.deepEqual(swapped.resourceIds, [people[0], rooms[1]]);
    expectStatus(await book(t.app, owner, { resourceId: rooms[0]!, ...half }), 201);
    // A busy resource at the new time: refused, naming it, and the reservation stays.
    nextHour(); // the hour `half` reaches into
    const busy = nextHour();
    expectStatus(await book(t.app, owner, { resourceId: rooms[1]!, ...busy }), 201);
    const refused = expectError(await move(busy), 409, 'HOST_UNAVAILABLE');
    assert.match(refused.message, new RegExp(`resource ${rooms[1]}`));
    const kept = await reservation(booked.id);
    assert.equal(kept.startTime, half.startTime);
    expectError(await book(t.app, owner, { resourceId: people[0]!, ...half }), 409, 'SLOT_UNAVAILABLE');
    expectError(await book(t.app, owner, { resourceId: rooms[1]!, ...half }), 409, 'SLOT_UNAVAILABLE');
    validationDetails(await move({ ...busy, resourceId: rooms[0]! }));
  });

  test('a recurring series books every resource for every occurrence, or names the occurrences that do not fit', async () => {
    const weekly = await createType(t.app, owner, {
      name: 'Weekly room',
      bookingMode: 'SINGLE_RESOURCE',
      recurringEnabled: true,
    });
    const host = await createType(t.app, owner, {
      name: 'Weekly host',
      bookingMode: 'SINGLE_RESOURCE',
      recurringEnabled: true,
    });
    const room = (await createResource(t.app, owner, { name: 'Series room', resourceTypeId: weekly.id })).id;
    const person = (await createResource(t.app, owner, { name: 'Series host', resourceTypeId: host.id })).id;
    const base = futureMonday();
    const first = { startTime: at(base, 24 * 14 + 9), endTime: at(base, 24 * 14 + 10) };
    const body = { resourceIds: [room, person], ...first, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] };
    // The host is busy in the second week: nothing is booked, that occurrence is named.
    const second = { startTime: at(base, 24 * 21 + 9), endTime: at(base, 24 * 21 + 10) };
    const busy = expectStatus(await book(t.app, owner, { resourceId: person, ...second }), 201);
    const refused = (await book(t.app, owner, body)).json();
    assert.equal(refused.error.code, 'HOST_UNAVAILABLE', JSON.stringify(refused));
    assert.deepEqual(
      refused.error.conflicts.map((c: { startTime: string }) => c.startTime),
      [second.startTime],
    );
    const dry = expectStatus(await book(t.app, owner, body, { query: 'dryRun=true' }), 200);
    assert.equal(dry.wouldSucceed, false);
    assert.equal(dry.error.code, 'HOST_UNAVAILABLE');
    expectStatus(await as(t.app, owner).post(`/api/reservations/${busy.id}/cancel`, {}), 200);
    const series = expectStatus(await book(t.app, owner, body), 201);
    assert.equal(series.reservations.length, 3);
    for (const occurrence of series.reservations) {
      assert.deepEqual(occurrence.resourceIds, [room, person]);
      assert.equal(occurrence.seriesId, series.seriesId);
      expectError(
        await book(t.app, owner, {
          resourceId: person,
          startTime: occurrence.startTime,
          endTime: occurrence.endTime,
        }),
        409,
        'SLOT_UNAVAILABLE',
      );
    }
  });

  test('the waitlist takes a collective time; its offer holds every resource', async () => {
    const room = await createType(t.app, owner, {
      name: 'Waited room',
      bookingMode: 'SINGLE_RESOURCE',
      waitlistEnabled: true,
    });
    const host = await createType(t.app, owner, {
      name: 'Waited host',
      bookingMode: 'SINGLE_RESOURCE',
      waitlistEnabled: true,
    });
    const ids = [
      (await createResource(t.app, owner, { name: 'Waited room', resourceTypeId: room.id })).id,
      (await createResource(t.app, owner, { name: 'Waited host', resourceTypeId: host.id })).id,
    ];
    const time = nextHour();
    const busy = expectStatus(await book(t.app, owner, { resourceId: ids[1]!, ...time }), 201);
    const join = (body: Record<string, unknown>) =>
      as(t.app, owner).post('/api/reservations/waitlist', { customer, ...time, ...body });
    const entry = expectStatus(await join({ resourceIds: ids }), 201);
    assert.equal(entry.status, 'waiting');
    assert.deepEqual(entry.resourceIds, ids);
    expectError(
      await join({ resourceIds: [ids[0]!, people[2]!], customer: { ...customer, email: 'x@example.test' } }),
      409,
      'SLOT_AVAILABLE',
    );
    expectStatus(await as(t.app, owner).post(`/api/reservations/${busy.id}/cancel`, {}), 200);
    await t.app.services.waitlist.processOffers({ sweep: true });
    const offered = expectStatus(await as(t.app, owner).get(`/api/reservations/waitlist/${entry.id}`), 200);
    assert.equal(offered.status, 'offered');
    const hold = await reservation(offered.offer.reservationId);
    assert.equal(hold.status, 'held');
    assert.deepEqual(hold.resourceIds, ids);
  });

  test("racing collective bookings keep a capped resource's daily cap", async () => {
    const capped = await createType(t.app, owner, { name: 'Capped host', bookingMode: 'SINGLE_RESOURCE' });
    const host = (
      await createResource(t.app, owner, { name: 'Capped', resourceTypeId: capped.id, maxBookingsPerDay: 1 })
    ).id;
    const day = futureMonday().getTime() + 21 * 86_400_000;
    const answers = await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        book(t.app, owner, {
          resourceIds: [host, n % 2 === 0 ? rooms[0]! : rooms[1]!],
          startTime: new Date(day + (8 + 2 * n) * 3_600_000).toISOString(),
          endTime: new Date(day + (9 + 2 * n) * 3_600_000).toISOString(),
        }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 1, `codes ${codes}`);
  });

  test("the person's export lists a collective reservation once, with its resources, and its waitlist entry's", async () => {
    const doc = parseExport(
      await t.app.inject({ method: 'GET', url: `${PRIVACY}/export`, headers: owner.auth }),
    );
    const collective = (doc.data.reservations as { id: number; resourceIds: number[] | null }[]).filter(
      (r) => r.resourceIds !== null,
    );
    assert.ok(collective.length > 0);
    assert.ok(collective.every((r) => Array.isArray(r.resourceIds) && r.resourceIds.length >= 2));
    const ids = (doc.data.reservations as { id: number }[]).map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'no part listed beside its reservation');
    const listed = expectStatus(await as(t.app, owner).get('/api/reservations?limit=100'), 200);
    assert.ok(listed.items.every((r: { id: number }) => ids.includes(r.id)));
    const waits = doc.data.waitlist_entries as { resourceIds: number[] | null }[];
    assert.ok(waits.some((w) => Array.isArray(w.resourceIds) && w.resourceIds.length === 2));
  });
});
