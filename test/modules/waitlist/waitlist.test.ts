import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday, NO_LOCALE } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import {
  memberWithRole,
  type OrgOwner,
  ownerWithOrganisation,
  withApiKey,
} from '../../helpers/organisations.js';

type Entry = {
  id: number;
  status: string;
  position: number | null;
  offer: { reservationId: number; expiresAt: string | null } | null;
};

/**
 * The waitlist (DECISIONS.md "Recurring reservations and the waitlist"): join a full time,
 * read, list, leave; freed time is offered to the oldest fitting entry as a timed hold,
 * which moves on when it lapses and accepts the entry when confirmed. The offer consumer
 * runs as its job would (`processOffers`); the clock is Date under mock.timers.
 */
describe('waitlist', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let first: SignedInUser;
  let second: SignedInUser;
  let room: { id: number };
  let plainRoom: { id: number };
  before(async () => {
    t = await createTestApp();
    owner = await withApiKey(t.app, await ownerWithOrganisation(t.app, { timezone: 'UTC' }));
    first = await withApiKey(t.app, await memberWithRole(t.app, owner, 'MEMBER'));
    second = await withApiKey(t.app, await memberWithRole(t.app, owner, 'MEMBER'));
    const type = await createType(t.app, owner, { waitlistEnabled: true, waitlistOfferMinutes: 10 });
    room = await createResource(t.app, owner, { name: 'Popular room', resourceTypeId: type.id });
    const plain = await createType(t.app, owner, { name: 'Plain' });
    plainRoom = await createResource(t.app, owner, { name: 'Plain room', resourceTypeId: plain.id });
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  /** A login JWT lives 15 minutes; a user API key carries a user across the fake clock. */

  const slot = (hour: number, resourceId = room.id) => ({
    resourceId,
    startTime: at(futureMonday(), hour),
    endTime: at(futureMonday(), hour + 1),
  });
  const join = (user: SignedInUser, body: Record<string, unknown>, email = 'w@example.test') =>
    as(t.app, user).post('/api/reservations/waitlist', { customer: { name: 'Waiting', email }, ...body });
  const entry = async (user: SignedInUser, id: number): Promise<Entry> =>
    expectStatus(await as(t.app, user).get(`/api/reservations/waitlist/${id}`), 200);
  const offers = () => t.app.services.waitlist.processOffers();
  const eventsOf = async (type: 'waitlist.joined' | 'waitlist.offered' | 'waitlist.expired') =>
    t.db.kysely.selectFrom('outboxEvents').select('data').where('type', '=', type).execute();

  test('join a full time, read, list; bad joins are refused with nothing written', async () => {
    expectStatus(await as(t.app, owner).post('/api/reservations', { customer, ...slot(8) }), 201);
    const joined = expectStatus(await join(first, slot(8)), 201);
    assert.deepEqual(
      { ...joined, id: 0, createdAt: '' },
      {
        id: 0,
        status: 'waiting',
        position: 1,
        resourceId: room.id,
        resourceIds: [room.id],
        resourceTypeId: joined.resourceTypeId,
        startTime: slot(8).startTime,
        endTime: slot(8).endTime,
        customer: { name: 'Waiting', email: 'w@example.test', ...NO_LOCALE },
        offer: null,
        createdAt: '',
      },
    );
    const behind = expectStatus(await join(second, slot(8), 'v@example.test'), 201);
    assert.equal(behind.position, 2);
    assert.equal((await eventsOf('waitlist.joined')).length, 2);

    const count = async () => (await t.db.kysely.selectFrom('waitlistEntries').select('id').execute()).length;
    const before = await count();
    expectError(await join(first, slot(10)), 409, 'SLOT_AVAILABLE');
    expectError(await join(first, slot(8, plainRoom.id)), 409, 'WAITLIST_NOT_ENABLED');
    expectError(await join(first, { ...slot(8), endTime: slot(7).startTime }), 400, 'VALIDATION_FAILED');
    assert.equal(await count(), before);

    // Someone else's entry is not there for another member; staff see every entry.
    expectError(await as(t.app, second).get(`/api/reservations/waitlist/${joined.id}`), 404, 'NOT_FOUND');
    expectError(await as(t.app, second).delete(`/api/reservations/waitlist/${joined.id}`), 404, 'NOT_FOUND');
    expectError(await as(t.app, first).get('/api/reservations/waitlist'), 403, 'FORBIDDEN');
    const listed = expectStatus(await as(t.app, owner).get('/api/reservations/waitlist?status=waiting'), 200);
    assert.deepEqual(
      listed.items.map((e: Entry) => e.id),
      [joined.id, behind.id],
    );
    // Leaving: the next moves up.
    const left = expectStatus(await as(t.app, first).delete(`/api/reservations/waitlist/${joined.id}`), 200);
    assert.equal(left.status, 'left');
    assert.equal((await entry(second, behind.id)).position, 1);
    expectError(
      await as(t.app, first).delete(`/api/reservations/waitlist/${joined.id}`),
      409,
      'INVALID_TRANSITION',
    );
  });

  test('the offer chain: offered on cancel, expired after waitlistOfferMinutes, next offered, confirmed accepts', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(12) }),
      201,
    );
    const one = expectStatus(await join(first, slot(12), 'one@example.test'), 201);
    const two = expectStatus(await join(second, slot(12), 'two@example.test'), 201);
    assert.equal((await offers()).offered, 0, 'nothing freed yet');

    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    assert.equal((await offers()).offered, 1);
    const offered = await entry(first, one.id);
    assert.equal(offered.status, 'offered');
    assert.equal(offered.position, null);
    assert.equal(offered.offer?.expiresAt, new Date(start + 10 * 60_000).toISOString());
    const hold = expectStatus(
      await as(t.app, first).get(`/api/reservations/${offered.offer!.reservationId}`),
      200,
    );
    assert.deepEqual(
      [hold.status, hold.startTime, hold.customer.email],
      ['held', slot(12).startTime, 'one@example.test'],
    );
    assert.equal((await entry(second, two.id)).position, 1);
    // The offer holds the time: nobody else books it; a second run offers nothing more.
    expectError(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(12) }),
      409,
      'SLOT_UNAVAILABLE',
    );
    assert.equal((await offers()).offered, 0);

    // Not taken in 10 minutes: the entry expires and the next in line gets the time.
    mock.timers.setTime(start + 11 * 60_000);
    await t.app.services.reservations.expireDue();
    assert.equal((await offers()).offered, 1);
    assert.equal((await entry(first, one.id)).status, 'expired');
    const next = await entry(second, two.id);
    assert.equal(next.status, 'offered');
    assert.equal((await eventsOf('waitlist.expired')).length, 1);
    assert.ok((await eventsOf('waitlist.offered')).length >= 2);

    // Confirmed: accepted, and the time is booked.
    const confirmed = expectStatus(
      await as(t.app, second).post(`/api/reservations/${next.offer!.reservationId}/confirm`),
      200,
    );
    assert.equal(confirmed.status, 'confirmed');
    await offers();
    const accepted = await entry(second, two.id);
    assert.equal(accepted.status, 'accepted');
    assert.equal(accepted.offer?.reservationId, confirmed.id);
  });

  test('leaving with an offer releases its hold, and the time goes to the next in line', async () => {
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(15) }),
      201,
    );
    const one = expectStatus(await join(first, slot(15), 'one@example.test'), 201);
    const two = expectStatus(await join(second, slot(15), 'two@example.test'), 201);
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    await offers();
    const offered = await entry(first, one.id);
    assert.equal(offered.status, 'offered');
    expectStatus(await as(t.app, first).delete(`/api/reservations/waitlist/${one.id}`), 200);
    const released = expectStatus(
      await as(t.app, owner).get(`/api/reservations/${offered.offer!.reservationId}`),
      200,
    );
    assert.equal(released.status, 'cancelled');
    await offers();
    assert.equal((await entry(second, two.id)).status, 'offered');
  });

  test('a capacity raised is offered at once, without waiting for the sweep', async () => {
    const type = await createType(t.app, owner, { name: 'Class', waitlistEnabled: true });
    const studio = await createResource(t.app, owner, { name: 'Studio', resourceTypeId: type.id });
    expectStatus(await as(t.app, owner).post('/api/reservations', { customer, ...slot(9, studio.id) }), 201);
    const waiting = expectStatus(await join(first, slot(9, studio.id), 'class@example.test'), 201);
    await t.app.jobs.idle();
    assert.equal((await entry(first, waiting.id)).status, 'waiting');
    expectStatus(await as(t.app, owner).patch(`/api/resources/${studio.id}`, { capacity: 2 }), 200);
    await t.app.jobs.idle();
    const offered = await entry(first, waiting.id);
    assert.equal(offered.status, 'offered');
    const hold = expectStatus(
      await as(t.app, owner).get(`/api/reservations/${offered.offer!.reservationId}`),
      200,
    );
    assert.equal(hold.status, 'held');
    assert.equal(hold.startTime, slot(9).startTime);
  });

  test('an entry whose offer is still being tried reads as waiting, in its place', async () => {
    expectStatus(await as(t.app, owner).post('/api/reservations', { customer, ...slot(17) }), 201);
    const ahead = expectStatus(await join(first, slot(17)), 201);
    const behind = expectStatus(await join(second, slot(17), 'v@example.test'), 201);
    // What the offer consumer does before its hold is made: the claim, not yet an offer.
    await t.db.kysely
      .updateTable('waitlistEntries')
      .set({ status: 'offered', offerReservationId: null, offerExpiresAt: null })
      .where('id', '=', ahead.id)
      .execute();
    const read = await entry(first, ahead.id);
    assert.deepEqual([read.status, read.position, read.offer], ['waiting', 1, null]);
    assert.equal((await entry(second, behind.id)).position, 2, 'the one behind keeps its place');
    const ids = async (status: string) =>
      expectStatus(await as(t.app, owner).get(`/api/reservations/waitlist?status=${status}`), 200).items.map(
        (e: Entry) => e.id,
      );
    assert.ok((await ids('waiting')).includes(ahead.id));
    assert.ok(!(await ids('offered')).includes(ahead.id));
  });

  test('a run asked for while another runs on the same instance answers only after that one offered', async () => {
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(19) }),
      201,
    );
    const waiting = expectStatus(await join(first, slot(19)), 201);
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    // The minute sweep (a job on this instance) has begun when a caller asks for its own run.
    const sweep = t.app.services.waitlist.processOffers({ sweep: true });
    await offers();
    const offered = await entry(first, waiting.id);
    assert.equal(offered.status, 'offered', 'the cancel is offered by the time the later run answers');
    assert.equal(typeof offered.offer?.reservationId, 'number');
    await sweep;
  });
});
