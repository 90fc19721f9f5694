import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

describe('public booking', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let type: { id: number };
  let pool: { id: number };
  let room: { id: number };
  const slug = `acme-${process.pid}`;
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, {
      name: 'Acme Rooms',
      slug,
      timezone: 'UTC',
      publicBookingHeadline: 'Book a room',
    });
    type = await createType(t.app, owner, {
      name: 'Meeting room',
      customerInfoFields: ['company'],
      pricingEnabled: true,
      priceAmount: 1500,
    });
    pool = await createType(t.app, owner, { name: 'Hot desk', bookingMode: 'POOL' });
    room = await createResource(t.app, owner, {
      name: 'Room 1',
      resourceTypeId: type.id,
      capacity: 2,
      managedById: owner.id,
    });
    await createResource(t.app, owner, { name: 'Desk', resourceTypeId: pool.id, capacity: 2 });
    const hidden = await createResource(t.app, owner, { name: 'Hidden', resourceTypeId: type.id });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/resources/${hidden.id}`,
      headers: owner.auth,
      payload: { isActive: false },
    });
    // Someone else's booking, which no public answer may reveal.
    const mon = futureMonday();
    await t.app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: owner.auth,
      payload: {
        resourceId: room.id,
        startTime: at(mon, 9),
        endTime: at(mon, 10),
        customer: { name: 'Secret Person', email: 'secret@example.test', company: 'Hidden Co' },
      },
    });
  });
  after(() => t.close());

  test('the organisation page shows branding and bookable items, nothing internal', async () => {
    const r = await t.app.inject({ method: 'GET', url: `/api/public/organisations/${slug}` });
    assert.equal(r.statusCode, 200);
    const body = r.json();
    assert.equal(body.organisation.name, 'Acme Rooms');
    assert.equal(body.organisation.publicBookingHeadline, 'Book a room');
    assert.deepEqual(body.resources.map((x: { name: string }) => x.name).sort(), ['Desk', 'Room 1']);
    assert.equal(body.resourceTypes.find((x: { id: number }) => x.id === type.id).priceAmount, 1500);
    const text = r.body;
    for (const secret of [
      'managedById',
      'organisationId',
      'email',
      'Secret Person',
      '#1',
      'publicToken',
      String(owner.email),
    ]) {
      assert.equal(text.includes(secret), false, `leaks ${secret}`);
    }
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/public/organisations/no-such-org' })).statusCode,
      404,
    );
  });

  test('availability by slug: a resource or a type, never other customers', async () => {
    const mon = futureMonday();
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/public/organisations/${slug}/availability?resourceId=${room.id}&from=${at(mon, 8)}&to=${at(mon, 11)}`,
    });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json().windows, [
      { start: at(mon, 8), end: at(mon, 9), freeLanes: 2, totalLanes: 2 },
      { start: at(mon, 9), end: at(mon, 10), freeLanes: 1, totalLanes: 2 },
      { start: at(mon, 10), end: at(mon, 11), freeLanes: 2, totalLanes: 2 },
    ]);
    assert.equal(r.body.includes('Secret'), false);
    const byType = await t.app.inject({
      method: 'GET',
      url: `/api/public/organisations/${slug}/availability?resourceTypeId=${pool.id}&from=${at(mon, 8)}&to=${at(mon, 11)}`,
    });
    assert.equal(byType.statusCode, 200);
    assert.equal(byType.json().pool.windows[0].totalLanes, 2);
    const both = await t.app.inject({
      method: 'GET',
      url: `/api/public/organisations/${slug}/availability?resourceTypeId=${pool.id}&resourceId=${room.id}&from=${at(mon, 8)}&to=${at(mon, 11)}`,
    });
    assert.equal(both.statusCode, 400);
  });

  test('booking by slug: same body as the API, price from the type, 400 for the wrong mode', async () => {
    const mon = futureMonday();
    const r = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/reservations`,
      payload: {
        resourceId: room.id,
        startTime: at(mon, 12),
        endTime: at(mon, 13),
        customer: { ...customer, company: 'Navy' },
      },
    });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().priceAmount, 1500);
    assert.equal(r.json().resourceId, undefined, 'no internal lane id');
    const stored = await t.app.inject({
      method: 'GET',
      url: `/api/reservations/${r.json().id}`,
      headers: owner.auth,
    });
    assert.equal(stored.json().source, 'public_slug');
    const poolByResource = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/reservations`,
      payload: {
        resourceTypeId: type.id,
        startTime: at(mon, 14),
        endTime: at(mon, 15),
        customer: { ...customer, company: 'x' },
      },
    });
    assert.equal(poolByResource.statusCode, 400, 'SINGLE_RESOURCE type needs a resource');
    const poolOk = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/reservations`,
      payload: { resourceTypeId: pool.id, startTime: at(mon, 14), endTime: at(mon, 15), customer },
    });
    assert.equal(poolOk.statusCode, 201);
  });

  test('legacy token path: page, availability, booking; an inactive or lane token is 404', async () => {
    const { token } = (
      await t.app.inject({
        method: 'GET',
        url: `/api/resources/${room.id}/public-token`,
        headers: owner.auth,
      })
    ).json();
    const page = await t.app.inject({ method: 'GET', url: `/api/public/resources/${token}` });
    assert.equal(page.statusCode, 200);
    assert.equal(page.json().resource.name, 'Room 1');
    assert.equal(page.body.includes('managedById'), false);
    const mon = futureMonday();
    const avail = await t.app.inject({
      method: 'GET',
      url: `/api/public/resources/${token}/availability?from=${at(mon, 8)}&to=${at(mon, 9)}`,
    });
    assert.equal(avail.statusCode, 200);
    const booked = await t.app.inject({
      method: 'POST',
      url: `/api/public/resources/${token}/reservations`,
      payload: { startTime: at(mon, 16), endTime: at(mon, 17), customer: { ...customer, company: 'Navy' } },
    });
    assert.equal(booked.statusCode, 201, booked.body);
    const withResource = await t.app.inject({
      method: 'POST',
      url: `/api/public/resources/${token}/reservations`,
      payload: { resourceId: room.id, startTime: at(mon, 18), endTime: at(mon, 19), customer },
    });
    assert.equal(withResource.statusCode, 400, 'the token fixes the resource');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/public/resources/not-a-token' })).statusCode,
      404,
    );
  });

  test('a token of a POOL type books that very resource', async () => {
    const poolRoom = await createResource(t.app, owner, { name: 'Pool desk', resourceTypeId: pool.id });
    const { token } = (
      await t.app.inject({
        method: 'GET',
        url: `/api/resources/${poolRoom.id}/public-token`,
        headers: owner.auth,
      })
    ).json();
    const mon = futureMonday();
    const r = await t.app.inject({
      method: 'POST',
      url: `/api/public/resources/${token}/reservations`,
      payload: { startTime: at(mon, 20), endTime: at(mon, 21), customer },
    });
    assert.equal(r.statusCode, 201, r.body);
    const stored = (
      await t.app.inject({ method: 'GET', url: `/api/reservations/${r.json().id}`, headers: owner.auth })
    ).json();
    assert.equal(stored.resourceId, poolRoom.id);
  });

  test('one organisation’s slug never reaches another organisation’s resources or types', async () => {
    const other = await ownerWithOrganisation(t.app, {
      name: 'Other',
      slug: `other-${process.pid}`,
      timezone: 'UTC',
    });
    const otherType = await createType(t.app, other, { bookingMode: 'BOTH' });
    const otherRes = await createResource(t.app, other, { name: 'Theirs', resourceTypeId: otherType.id });
    const mon = futureMonday();
    const range = `from=${at(mon, 8)}&to=${at(mon, 9)}`;
    for (const query of [`resourceId=${otherRes.id}`, `resourceTypeId=${otherType.id}`]) {
      const r = await t.app.inject({
        method: 'GET',
        url: `/api/public/organisations/${slug}/availability?${query}&${range}`,
      });
      assert.equal(r.statusCode, 404, query);
    }
    for (const target of [{ resourceId: otherRes.id }, { resourceTypeId: otherType.id }]) {
      const r = await t.app.inject({
        method: 'POST',
        url: `/api/public/organisations/${slug}/reservations`,
        payload: { ...target, startTime: at(mon, 8), endTime: at(mon, 9), customer },
      });
      assert.equal(r.statusCode, 404, JSON.stringify(target));
    }
  });

  test('an archived organisation disappears from public routes', async () => {
    const gone = await ownerWithOrganisation(t.app, { name: 'Gone', slug: `gone-${process.pid}` });
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/public/organisations/gone-${process.pid}` }))
        .statusCode,
      200,
    );
    const archived = await t.app.inject({
      method: 'DELETE',
      url: `/api/organisations/${gone.organisationId}`,
      headers: gone.auth,
    });
    assert.ok(archived.statusCode < 300, archived.body);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/public/organisations/gone-${process.pid}` }))
        .statusCode,
      404,
    );
  });
});

describe('public booking limits and flags', () => {
  test('public routes have their own rate limit', async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '2' });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++) {
        codes.push(
          (
            await t.app.inject({
              method: 'GET',
              url: '/api/public/organisations/none',
              remoteAddress: '10.9.9.9',
            })
          ).statusCode,
        );
      }
      assert.deepEqual(codes, [404, 404, 429]);
    } finally {
      await t.close();
    }
  });

  test('the publicBooking feature flag switches every public route off', async () => {
    const t = await createTestApp({ FEATURE_FLAGS: '{"publicBooking": false}' });
    try {
      const owner = await ownerWithOrganisation(t.app, { slug: 'flagged' });
      const r = await t.app.inject({ method: 'GET', url: '/api/public/organisations/flagged' });
      assert.equal(r.statusCode, 404);
      assert.ok(owner.organisationId);
    } finally {
      await t.close();
    }
  });
});
