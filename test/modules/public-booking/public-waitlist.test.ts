import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * The public waitlist (DECISIONS.md "Recurring reservations and the waitlist"): a customer
 * waits for a full time through the organisation page with a manage link; when the time
 * frees, the offer's hold is theirs at that same link, and confirming it there accepts it.
 */
describe('public waitlist by slug', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let plainRoom: { id: number };
  const slug = `waitlist-${process.pid}`;
  const mon = futureMonday();
  const slot = (hour: number, resourceId = room.id) => ({
    resourceId,
    startTime: at(mon, hour),
    endTime: at(mon, hour + 1),
  });
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { name: 'Waiting Ltd', slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, { name: 'Class', waitlistEnabled: true });
    room = await createResource(t.app, owner, { name: 'Class 1', resourceTypeId: type.id });
    const plain = await createType(t.app, owner, { name: 'Plain' });
    plainRoom = await createResource(t.app, owner, { name: 'Plain 1', resourceTypeId: plain.id });
  });
  after(() => t.close());

  const join = (body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/waitlist`,
      payload: { customer: { name: 'Pat Public', email: 'pat@example.test' }, ...body },
    });

  test('join with a manage link; the offer arrives at that link and is confirmed there', async () => {
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(9) }),
      201,
    );
    const entry = expectStatus(await join(slot(9)), 201);
    assert.equal(entry.status, 'waiting');
    assert.equal(entry.position, 1);
    assert.match(entry.manageToken, /^[A-Za-z0-9_-]{20,}$/);
    assert.equal(entry.manageUrl, `http://frontend.test/manage/${entry.manageToken}`);
    expectError(await join(slot(11)), 409, 'SLOT_AVAILABLE');
    expectError(await join(slot(9, plainRoom.id)), 409, 'WAITLIST_NOT_ENABLED');
    expectError(await join({ ...slot(9), resourceId: 999_999 }), 404, 'NOT_FOUND');

    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    await t.app.services.waitlist.processOffers();
    const offer = expectStatus(
      await t.app.inject({ method: 'GET', url: `/api/public/reservations/${entry.manageToken}` }),
      200,
    );
    assert.equal(offer.status, 'held');
    assert.equal(offer.startTime, slot(9).startTime);
    const confirmed = expectStatus(
      await t.app.inject({ method: 'POST', url: `/api/public/reservations/${entry.manageToken}/confirm` }),
      200,
    );
    assert.equal(confirmed.status, 'confirmed');
    await t.app.services.waitlist.processOffers();
    const staffView = expectStatus(await as(t.app, owner).get(`/api/reservations/waitlist/${entry.id}`), 200);
    assert.equal(staffView.status, 'accepted');
  });

  const entryAt = (token: string, method: 'GET' | 'DELETE' = 'GET') =>
    t.app.inject({ method, url: `/api/public/waitlist/${token}` });

  test('the manage link reads the entry before its offer, and leaves it', async () => {
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(13) }),
      201,
    );
    const first = expectStatus(await join(slot(13)), 201);
    const second = expectStatus(
      await join({ ...slot(13), customer: { name: 'Sam Public', email: 'sam@example.test' } }),
      201,
    );
    const seen = expectStatus(await entryAt(second.manageToken), 200);
    assert.equal(seen.id, second.id);
    assert.equal(seen.status, 'waiting');
    assert.equal(seen.position, 2);
    assert.equal(seen.offer, null);
    assert.equal(seen.organisation.slug, slug);
    // No reservation yet at that link.
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/public/reservations/${second.manageToken}` }),
      404,
      'NOT_FOUND',
    );

    const left = expectStatus(await entryAt(first.manageToken, 'DELETE'), 200);
    assert.equal(left.status, 'left');
    assert.equal(left.position, null);
    expectError(await entryAt(first.manageToken, 'DELETE'), 409, 'INVALID_TRANSITION');
    assert.equal(expectStatus(await entryAt(second.manageToken), 200).position, 1, 'the next moves up');

    // The one left behind gets the offer; leaving then lets its hold go.
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    await t.app.services.waitlist.processOffers();
    const offered = expectStatus(await entryAt(second.manageToken), 200);
    assert.equal(offered.status, 'offered');
    assert.equal(typeof offered.offer.reservationId, 'number');
    assert.equal(expectStatus(await entryAt(second.manageToken, 'DELETE'), 200).status, 'left');
    const hold = expectStatus(
      await as(t.app, owner).get(`/api/reservations/${offered.offer.reservationId}`),
      200,
    );
    assert.equal(hold.status, 'cancelled', 'the offer is released');
  });

  test('an unknown or malformed waitlist link is 404', async () => {
    expectError(await entryAt('x'.repeat(43)), 404, 'NOT_FOUND');
    expectError(await entryAt('short'), 404, 'NOT_FOUND');
    expectError(await entryAt('x'.repeat(43), 'DELETE'), 404, 'NOT_FOUND');
  });
});
