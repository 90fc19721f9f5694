import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentActor } from '../../../src/lib/actor.js';
import type { DomainError } from '../../../src/lib/errors.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

describe('resource types and resources', () => {
  let t: TestApp;
  let owner: OrgOwner;
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app);
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  test('resource type CRUD with defaults, colour route, and organisationId refused', async () => {
    const type = await createType(t.app, owner, {
      name: 'Court',
      availabilityMode: 'shifts',
      color: '#AABBCC',
    });
    assert.equal(type.minBookingDuration, 60);
    assert.equal(type.bufferTime, 0);
    assert.equal(type.bookingMode, 'SINGLE_RESOURCE');
    assert.equal(type.availabilityMode, 'shifts');
    assert.deepEqual(type.schedulePolicy, { availabilityMode: 'shifts' });
    assert.equal(type.color, '#aabbcc');
    assert.equal(type.organisationId, owner.organisationId);

    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/resource-types',
      headers: owner.auth,
      payload: { name: 'X', organisationId: owner.organisationId },
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.details[0].path, 'body.organisationId');

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/resource-types/${type.id}`,
      headers: owner.auth,
      payload: { bufferTime: 10, isActive: false },
    });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().bufferTime, 10);
    assert.equal(patched.json().isActive, false);
    assert.equal(patched.json().availabilityMode, 'shifts', 'untouched fields stay');

    const colour = await t.app.inject({
      method: 'PATCH',
      url: `/api/resource-types/${type.id}/color`,
      headers: owner.auth,
      payload: { color: '#112233' },
    });
    assert.equal(colour.json().color, '#112233');

    const list = await get('/api/resource-types', owner.auth);
    assert.ok(list.json().some((r: { id: number }) => r.id === type.id));
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/resource-types/${type.id}`,
      headers: owner.auth,
    });
    assert.equal(del.statusCode, 204);
    assert.equal((await get(`/api/resource-types/${type.id}`, owner.auth)).statusCode, 404);
  });

  test('resource type validation: bounds, mode clash, pricing rules, currency from the organisation', async () => {
    for (const [payload, path] of [
      [{ name: 'X', minBookingDuration: 0 }, 'body.minBookingDuration'],
      [{ name: 'X', bufferTime: -1 }, 'body.bufferTime'],
      [{ name: 'X', bookingMode: 'ANY' }, 'body.bookingMode'],
      [{ name: 'X', priceCurrency: 'zzz' }, 'body.priceCurrency'],
      [
        { name: 'X', availabilityMode: 'shifts', schedulePolicy: { availabilityMode: 'continuous' } },
        'body.availabilityMode',
      ],
      [{ name: 'X', pricingEnabled: true }, 'body.priceAmount'],
      [{ name: 'X', paymentRequired: true }, 'body.paymentRequired'],
      [
        {
          name: 'X',
          schedulePolicy: { operatingHours: [{ dayOfWeek: 7, openTime: '09:00', closeTime: '10:00' }] },
        },
        'body.schedulePolicy.operatingHours.0.dayOfWeek',
      ],
    ] as const) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/resource-types',
        headers: owner.auth,
        payload,
      });
      assert.equal(r.statusCode, 400, JSON.stringify(payload));
      assert.ok(
        r.json().error.details.some((d: { path: string }) => d.path === path),
        `${JSON.stringify(payload)} -> ${JSON.stringify(r.json().error.details)}`,
      );
    }
    const priced = await createType(t.app, owner, { pricingEnabled: true, priceAmount: 2500 });
    assert.equal(priced.priceCurrency, 'usd', 'the organisation default currency');
    const eur = await createType(t.app, owner, {
      pricingEnabled: true,
      priceAmount: 100,
      priceCurrency: 'EUR',
    });
    assert.equal(eur.priceCurrency, 'eur');
  });

  test('roles: MEMBER reads, MANAGER writes, non-member sees nothing', async () => {
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    const type = await createType(t.app, manager, { name: 'Managed' });
    assert.equal((await get(`/api/resource-types/${type.id}`, member.auth)).statusCode, 200);
    const write = await t.app.inject({
      method: 'POST',
      url: '/api/resources',
      headers: member.auth,
      payload: { name: 'R', resourceTypeId: type.id },
    });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().error.code, 'FORBIDDEN');
    const writeType = await t.app.inject({
      method: 'PATCH',
      url: `/api/resource-types/${type.id}`,
      headers: member.auth,
      payload: { name: 'Nope' },
    });
    assert.equal(writeType.statusCode, 403);

    const stranger = await registerUser(t.app);
    const none = await get('/api/resources', stranger.auth);
    assert.equal(none.statusCode, 409);
    assert.equal(none.json().error.code, 'NO_ACTIVE_ORGANISATION');
  });

  test('tenant isolation: another organisation’s ids answer 404 on every route', async () => {
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Private', resourceTypeId: type.id, capacity: 2 });
    const other = await ownerWithOrganisation(t.app, { name: 'Other' });
    const mon = futureMonday();
    const range = `from=${at(mon, 0)}&to=${at(mon, 24)}`;
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/api/resource-types/${type.id}`],
      ['PATCH', `/api/resource-types/${type.id}`, { name: 'x' }],
      ['DELETE', `/api/resource-types/${type.id}`],
      ['PATCH', `/api/resource-types/${type.id}/color`, { color: '#000000' }],
      ['GET', `/api/resource-types/${type.id}/availability?${range}`],
      ['GET', `/api/resources/${res.id}`],
      ['PATCH', `/api/resources/${res.id}`, { name: 'x' }],
      ['DELETE', `/api/resources/${res.id}`],
      ['DELETE', `/api/resources/${res.id}/cascade`],
      ['GET', `/api/resources/${res.id}/public-token`],
      ['POST', `/api/resources/${res.id}/regenerate-token`],
      ['GET', `/api/resources/${res.id}/schedule`],
      ['GET', `/api/resources/${res.id}/availability?${range}`],
    ];
    for (const [method, url, payload] of attempts) {
      const r = await t.app.inject({
        method: method as 'GET',
        url,
        headers: other.auth,
        ...(payload ? { payload } : {}),
      });
      assert.equal(r.statusCode, 404, `${method} ${url}: ${r.body}`);
      assert.equal(r.json().error.code, 'NOT_FOUND');
    }
    const list = await get('/api/resources', other.auth);
    assert.deepEqual(list.json(), []);
    const foreignType = await t.app.inject({
      method: 'POST',
      url: '/api/resources',
      headers: other.auth,
      payload: { name: 'Sneaky', resourceTypeId: type.id },
    });
    assert.equal(foreignType.statusCode, 400);
    const booking = await t.app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: other.auth,
      payload: { resourceId: res.id, startTime: at(mon, 10), endTime: at(mon, 11), customer },
    });
    assert.equal(booking.statusCode, 400);
    // Untouched for the owner.
    assert.equal((await get(`/api/resources/${res.id}`, owner.auth)).json().name, 'Private');
  });

  test('capacity lanes: seeded, ordered, grown, shrunk, renamed, and system-managed', async () => {
    const type = await createType(t.app, owner);
    const desk = await createResource(t.app, owner, { name: 'Desk', resourceTypeId: type.id, capacity: 3 });
    const solo = await createResource(t.app, owner, { name: 'Solo', resourceTypeId: type.id });
    const listed = (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json();
    assert.deepEqual(
      listed.map((r: { name: string; capacityLaneIndex: number | null; isCapacityChild: boolean }) => [
        r.name,
        r.capacityLaneIndex,
        r.isCapacityChild,
      ]),
      [
        ['Desk', null, false],
        ['Desk #1', 1, true],
        ['Desk #2', 2, true],
        ['Desk #3', 3, true],
        ['Solo', null, false],
      ],
    );
    const lanes = listed.filter((r: { parentResourceId: number }) => r.parentResourceId === desk.id);
    assert.equal(lanes.length, 3);

    const grown = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${desk.id}`,
      headers: owner.auth,
      payload: { capacity: 5, name: 'Bench' },
    });
    assert.equal(grown.statusCode, 200);
    const afterGrow = (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json();
    assert.deepEqual(
      afterGrow
        .filter((r: { parentResourceId: number }) => r.parentResourceId === desk.id)
        .map((r: { name: string }) => r.name),
      ['Bench #1', 'Bench #2', 'Bench #3', 'Bench #4', 'Bench #5'],
    );
    assert.equal(afterGrow[1].id, lanes[0].id, 'existing lanes keep their ids');

    const shrunk = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${desk.id}`,
      headers: owner.auth,
      payload: { capacity: 2 },
    });
    assert.equal(shrunk.statusCode, 200);
    const afterShrink = (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json();
    assert.deepEqual(
      afterShrink
        .filter((r: { parentResourceId: number }) => r.parentResourceId === desk.id)
        .map((r: { capacityLaneIndex: number }) => r.capacityLaneIndex),
      [1, 2],
    );
    const toOne = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${desk.id}`,
      headers: owner.auth,
      payload: { capacity: 1 },
    });
    assert.equal(toOne.statusCode, 200);
    assert.equal(
      (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth))
        .json()
        .filter((r: { parentResourceId: number }) => r.parentResourceId === desk.id).length,
      0,
      'capacity 1 means no lanes',
    );

    for (const payload of [
      { name: 'L', resourceTypeId: type.id, isCapacityChild: true },
      { name: 'L', resourceTypeId: type.id, parentResourceId: desk.id },
      { name: 'L', resourceTypeId: type.id, capacityLaneIndex: 1 },
      { name: 'L', resourceTypeId: type.id, capacity: 0 },
    ]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/resources', headers: owner.auth, payload });
      assert.equal(r.statusCode, 400, JSON.stringify(payload));
    }
    const laneEdit = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${lanes[0].id}`,
      headers: owner.auth,
      payload: { capacityLaneIndex: 9 },
    });
    assert.equal(laneEdit.statusCode, 400);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${desk.id}`,
      headers: owner.auth,
      payload: { capacity: 2 },
    });
    const newLane = (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json()[1];
    const laneRename = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${newLane.id}`,
      headers: owner.auth,
      payload: { name: 'Renamed lane' },
    });
    assert.equal(laneRename.statusCode, 409, 'lanes are edited through their parent');
    assert.equal(solo.capacity, 1);
  });

  test('lowering capacity is refused when a removed lane holds a future reservation', async () => {
    const type = await createType(t.app, owner);
    const room = await createResource(t.app, owner, { name: 'Hall', resourceTypeId: type.id, capacity: 2 });
    const mon = futureMonday();
    for (let i = 0; i < 2; i++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/reservations',
        headers: owner.auth,
        payload: { resourceId: room.id, startTime: at(mon, 10), endTime: at(mon, 11), customer },
      });
      assert.equal(r.statusCode, 201);
    }
    const refused = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${room.id}`,
      headers: owner.auth,
      payload: { capacity: 1 },
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'LANE_HAS_RESERVATIONS');
    const lanes = (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json();
    assert.equal(lanes.length, 3, 'nothing changed');
    assert.equal((await get(`/api/resources/${room.id}`, owner.auth)).json().capacity, 2);
  });

  test('DELETE of a parent with lanes is refused; cascade removes both; type in use is refused', async () => {
    const type = await createType(t.app, owner);
    const parent = await createResource(t.app, owner, { name: 'Boat', resourceTypeId: type.id, capacity: 2 });
    const refused = await t.app.inject({
      method: 'DELETE',
      url: `/api/resources/${parent.id}`,
      headers: owner.auth,
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'RESOURCE_HAS_CHILD_LANES');
    const typeInUse = await t.app.inject({
      method: 'DELETE',
      url: `/api/resource-types/${type.id}`,
      headers: owner.auth,
    });
    assert.equal(typeInUse.statusCode, 409);
    assert.equal(typeInUse.json().error.code, 'RESOURCE_TYPE_IN_USE');
    const cascade = await t.app.inject({
      method: 'DELETE',
      url: `/api/resources/${parent.id}/cascade`,
      headers: owner.auth,
    });
    assert.equal(cascade.statusCode, 204);
    assert.deepEqual((await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json(), []);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/resource-types/${type.id}`, headers: owner.auth }))
        .statusCode,
      204,
    );
  });

  test('public token: read, regenerate, the old link stops working', async () => {
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Kayak', resourceTypeId: type.id });
    const first = (await get(`/api/resources/${res.id}/public-token`, owner.auth)).json();
    assert.match(first.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(first.publicUrl, `http://service.test/api/public/resources/${first.token}`);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/public/resources/${first.token}` })).statusCode,
      200,
    );
    const regenerated = await t.app.inject({
      method: 'POST',
      url: `/api/resources/${res.id}/regenerate-token`,
      headers: owner.auth,
    });
    assert.equal(regenerated.statusCode, 200);
    assert.notEqual(regenerated.json().token, first.token);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/public/resources/${first.token}` })).statusCode,
      404,
    );
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/public/resources/${regenerated.json().token}` }))
        .statusCode,
      200,
    );
    assert.equal((await get(`/api/resources/${res.id}`, owner.auth)).json().publicToken, undefined);
  });

  test('effective schedule: organisation, then type, then resource, each section whole', async () => {
    const org = await ownerWithOrganisation(t.app, {
      name: 'Sched',
      schedulePolicy: {
        availabilityMode: 'continuous',
        operatingHours: [
          { dayOfWeek: 1, openTime: '08:00', closeTime: '18:00' },
          { dayOfWeek: 2, openTime: '08:00', closeTime: '18:00' },
        ],
        shiftSchedule: [{ dayOfWeek: 1, slots: [{ startTime: '08:00', endTime: '12:00' }] }],
      },
    });
    const type = await createType(t.app, org, {
      schedulePolicy: { operatingHours: [{ dayOfWeek: 3, openTime: '10:00', closeTime: '12:00' }] },
    });
    const inherits = await createResource(t.app, org, { name: 'A', resourceTypeId: type.id });
    const overrides = await createResource(t.app, org, {
      name: 'B',
      resourceTypeId: type.id,
      operatingHoursOverrides: [{ dayOfWeek: 5, openTime: '07:00', closeTime: '09:00' }],
      schedulePolicy: { availabilityMode: 'shifts' },
    });
    const a = (await get(`/api/resources/${inherits.id}/schedule`, org.auth)).json();
    assert.deepEqual(a.sources, {
      availabilityMode: 'organisation',
      operatingHours: 'resourceType',
      shiftSchedule: 'organisation',
    });
    assert.deepEqual(
      a.operatingHours,
      [{ dayOfWeek: 3, openTime: '10:00', closeTime: '12:00', isActive: true }],
      'no per-weekday merge',
    );
    const b = (await get(`/api/resources/${overrides.id}/schedule`, org.auth)).json();
    assert.deepEqual(b.sources, {
      availabilityMode: 'resource',
      operatingHours: 'resource',
      shiftSchedule: 'organisation',
    });
    assert.equal(b.availabilityMode, 'shifts');
    assert.deepEqual(b.operatingHours, [
      { dayOfWeek: 5, openTime: '07:00', closeTime: '09:00', isActive: true },
    ]);
    const bRecord = (await get(`/api/resources/${overrides.id}`, org.auth)).json();
    assert.deepEqual(bRecord.operatingHoursOverrides, b.operatingHours);

    const plain = await ownerWithOrganisation(t.app, { name: 'Plain' });
    const plainType = await createType(t.app, plain);
    const plainRes = await createResource(t.app, plain, { name: 'P', resourceTypeId: plainType.id });
    const p = (await get(`/api/resources/${plainRes.id}/schedule`, plain.auth)).json();
    assert.deepEqual(p.sources, {
      availabilityMode: 'default',
      operatingHours: 'default',
      shiftSchedule: 'default',
    });
    assert.equal(p.operatingHours.length, 7);
    assert.deepEqual(p.operatingHours[0], {
      dayOfWeek: 0,
      openTime: '00:00',
      closeTime: '24:00',
      isActive: true,
    });
    assert.deepEqual(p.shiftSchedule, []);

    const clash = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${overrides.id}`,
      headers: org.auth,
      payload: {
        operatingHoursOverrides: [{ dayOfWeek: 5, openTime: '07:00', closeTime: '09:00' }],
        schedulePolicy: { operatingHours: [{ dayOfWeek: 4, openTime: '07:00', closeTime: '09:00' }] },
      },
    });
    assert.equal(clash.statusCode, 400);
  });

  test('organisation deletion preview counts the catalogue; the colour cascade reaches every type', async () => {
    const org = await ownerWithOrganisation(t.app, { name: 'Counted', timezone: 'UTC' });
    const a = await createType(t.app, org, { color: '#000000' });
    const b = await createType(t.app, org);
    const parent = await createResource(t.app, org, { name: 'Lanes', resourceTypeId: a.id, capacity: 3 });
    await createResource(t.app, org, { name: 'Single', resourceTypeId: b.id });
    const mon = futureMonday();
    const booked = await t.app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: org.auth,
      payload: { resourceId: parent.id, startTime: at(mon, 9), endTime: at(mon, 10), customer },
    });
    assert.equal(booked.statusCode, 201);
    const preview = await get(`/api/organisations/${org.organisationId}/deletion-preview`, org.auth);
    assert.deepEqual(preview.json(), {
      organisationId: org.organisationId,
      members: 1,
      resourceTypes: 2,
      resources: 2,
      futureReservations: 1,
    });
    const colour = await t.app.inject({
      method: 'PATCH',
      url: `/api/organisations/${org.organisationId}/color`,
      headers: org.auth,
      payload: { color: '#123456', cascadeToResourceTypes: true },
    });
    assert.equal(colour.statusCode, 200, colour.body);
    const types = (await get('/api/resource-types', org.auth)).json();
    assert.deepEqual(
      types.map((x: { color: string }) => x.color),
      ['#123456', '#123456'],
    );
  });

  test('raising capacity moves the resource’s reservations onto lane #1, and capacity 1 brings them back', async () => {
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Grows', resourceTypeId: type.id });
    const mon = futureMonday();
    const slot = { resourceId: res.id, startTime: at(mon, 9), endTime: at(mon, 10), customer };
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: owner.auth,
      payload: slot,
    });
    assert.equal(first.statusCode, 201);
    const grow = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${res.id}`,
      headers: owner.auth,
      payload: { capacity: 2 },
    });
    assert.equal(grow.statusCode, 200);
    const lanes = (await get(`/api/resources?resourceTypeId=${type.id}`, owner.auth)).json();
    const moved = (await get(`/api/reservations/${first.json().id}`, owner.auth)).json();
    assert.equal(moved.resourceId, lanes[1].id, 'now held by lane #1');
    const codes = [];
    for (let i = 0; i < 2; i++) {
      codes.push(
        (await t.app.inject({ method: 'POST', url: '/api/reservations', headers: owner.auth, payload: slot }))
          .statusCode,
      );
    }
    assert.deepEqual(codes, [201, 409], 'capacity 2 holds two bookings of the slot, not three');
    await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${moved.id + 1}/cancel`,
      headers: owner.auth,
    });
    const shrink = await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${res.id}`,
      headers: owner.auth,
      payload: { capacity: 1 },
    });
    assert.equal(shrink.statusCode, 200, shrink.body);
    assert.equal((await get(`/api/reservations/${first.json().id}`, owner.auth)).json().resourceId, res.id);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: owner.auth,
      payload: slot,
    });
    assert.equal(again.statusCode, 409, 'the returned reservation still holds the time');
  });

  test('ids beyond 32 bits answer 400 in paths, queries and bodies', async () => {
    const big = 3_000_000_000;
    const type = await createType(t.app, owner);
    const mon = futureMonday();
    for (const [method, url, payload] of [
      ['GET', `/api/resources/${big}`],
      ['GET', `/api/resource-types/${big}/availability?from=${at(mon, 0)}&to=${at(mon, 1)}`],
      ['GET', `/api/reservations?resourceId=${big}`],
      ['GET', `/api/resources?resourceTypeId=${big}`],
      [
        'POST',
        '/api/reservations',
        { resourceId: big, startTime: at(mon, 1), endTime: at(mon, 2), customer },
      ],
      ['POST', '/api/resources', { name: 'Big', resourceTypeId: big }],
      ['PATCH', '/api/organisations/active', { organisationId: big }],
      ['POST', `/api/organisations/${owner.organisationId}/users`, { userId: big }],
    ] as const) {
      const r = await t.app.inject({ method, url, headers: owner.auth, ...(payload ? { payload } : {}) });
      assert.equal(r.statusCode, 400, `${method} ${url}: ${r.body}`);
    }
    assert.ok(type.id);
  });

  test('managedById must be a member of the organisation', async () => {
    const type = await createType(t.app, owner);
    const stranger = await registerUser(t.app);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/resources',
      headers: owner.auth,
      payload: { name: 'M', resourceTypeId: type.id, managedById: stranger.id },
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.details[0].path, 'body.managedById');
    const ok = await createResource(t.app, owner, {
      name: 'M',
      resourceTypeId: type.id,
      managedById: owner.id,
    });
    assert.equal(ok.managedById, owner.id);
  });

  test('an agent acts with its owner’s role and active organisation; its scope does not narrow the catalogue', async () => {
    const { resources, resourceTypes } = t.app.services;
    const agentOf = (userId: number) =>
      agentActor(userId, { id: 1, actions: new Set(['resources.create']), scope: {} });
    const refusedWith = (code: string) => (error: DomainError) => error.code === code;
    const type = await createType(t.app, owner);
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const admin = await memberWithRole(t.app, owner, 'ADMIN');

    await assert.rejects(
      resourceTypes.create(agentOf(member.id), { name: 'By agent' }),
      refusedWith('FORBIDDEN'),
    );
    await assert.rejects(
      resources.create(agentOf(member.id), { name: 'By agent', resourceTypeId: type.id }),
      refusedWith('FORBIDDEN'),
    );

    const agentType = await resourceTypes.create(agentOf(admin.id), { name: 'By agent' });
    assert.equal(agentType.organisationId, owner.organisationId);
    const agentResource = await resources.create(agentOf(admin.id), {
      name: 'By agent',
      resourceTypeId: agentType.id,
    });
    assert.equal(agentResource.organisationId, owner.organisationId);
    // Calendar and group scopes belong to the personal side: the catalogue is organisation-wide.
    const scoped = agentActor(member.id, {
      id: 2,
      actions: new Set(),
      scope: { calendarIds: [], groupIds: [] },
    });
    assert.equal((await resources.get(scoped, agentResource.id)).id, agentResource.id);

    const loner = await registerUser(t.app);
    await assert.rejects(
      resourceTypes.create(agentOf(loner.id), { name: 'By agent' }),
      refusedWith('NO_ACTIVE_ORGANISATION'),
    );
    await assert.rejects(
      resources.create(agentOf(loner.id), { name: 'By agent', resourceTypeId: type.id }),
      refusedWith('NO_ACTIVE_ORGANISATION'),
    );
  });
});
