import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, createReservation, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus, ok } from '../../helpers/http.js';
import { memberWithRole, ownerWithOrganisation } from '../../helpers/organisations.js';
import { PRIVACY } from '../../helpers/privacy.js';
import { feedReader } from './helpers.js';

/**
 * Membership ends access (DECISIONS.md "What the review found", issue 49 item 4): the
 * personal feed `GET /api/me/events` answers the events of organisations the caller
 * belongs to now, of no organisation, and of their own membership; a member removed (or
 * an organisation archived) takes its reservations' events, and their customers, away.
 */
describe('the personal feed ends with the membership', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const mon = futureMonday();
  const customer = {
    name: 'Ada Feedwatcher',
    email: 'ada.feedwatcher@example.test',
    phone: '+44 20 7946 0000',
  };

  async function organisationWithRoom() {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner);
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    return { owner, room };
  }

  test('a removed member reads nothing more of the organisation: not its later events, not its customers', async () => {
    const { owner, room } = await organisationWithRoom();
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const booked = await createReservation(t.app, member, { resourceId: room.id, ...hourSlot(mon, 9) });
    const feed = feedReader(t.app, member, '/api/me/events');
    const before = await feed.next();
    assert.deepEqual(
      before.map((event) => event.type),
      ['membership.invited', 'membership.accepted', 'reservation.created'],
    );
    assert.equal(before[2]!.data.id, booked.id);

    expectStatus(
      await as(t.app, owner).delete(`/api/organisations/${owner.organisationId}/users/${member.id}`),
      204,
    );
    // What staff do with the member's reservation afterwards is no longer the member's to read.
    expectStatus(
      await as(t.app, owner).post(`/api/reservations/${booked.id}/reschedule`, {
        startTime: at(mon, 11),
        endTime: at(mon, 12),
      }),
      200,
    );
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`, {}), 200);
    // Their own events of no organisation still reach them.
    const request = await ok(t.app, member, 'POST', `${PRIVACY}/requests`, {
      requestType: 'access',
      reason: 'What do you hold?',
    });
    await t.app.services.privacy.operator.process(request.id);
    await t.app.jobs.idle();

    const later = await feed.next();
    assert.deepEqual(
      later.map((event) => event.type),
      ['privacy.request.completed'],
    );
    // Read from the start, the organisation's reservation events are gone; their membership's stay.
    const all = await feedReader(t.app, member, '/api/me/events').next();
    assert.deepEqual(
      all.map((event) => event.type),
      ['membership.invited', 'membership.accepted', 'privacy.request.completed'],
    );
    assert.ok(!JSON.stringify(all).includes(customer.email), 'no customer data');
    // The organisation's own feed still has all of it.
    const organisation = await feedReader(
      t.app,
      owner,
      `/api/organisations/${owner.organisationId}/events`,
    ).next();
    assert.ok(
      organisation.some((event) => event.type === 'reservation.cancelled' && event.data.id === booked.id),
    );
  });

  test('a member of two organisations keeps the one they still belong to; an archived one goes quiet', async () => {
    const first = await organisationWithRoom();
    const second = await organisationWithRoom();
    const member = await memberWithRole(t.app, first.owner, 'MEMBER');
    const invitationOrg = second.owner.organisationId;
    expectStatus(
      await as(t.app, second.owner).post(`/api/organisations/${invitationOrg}/users/assign`, {
        userId: member.id,
        role: 'MANAGER',
      }),
      201,
    );
    expectStatus(await as(t.app, member).post(`/api/organisations/${invitationOrg}/invitation/accept`), 200);
    const inFirst = await createReservation(t.app, member, {
      resourceId: first.room.id,
      ...hourSlot(mon, 9),
    });
    expectStatus(
      await as(t.app, member).patch('/api/organisations/active', { organisationId: invitationOrg }),
      200,
    );
    const inSecond = await createReservation(t.app, member, {
      resourceId: second.room.id,
      ...hourSlot(mon, 9),
    });

    const reservations = async () =>
      (await feedReader(t.app, member, '/api/me/events').next())
        .filter((event) => event.type.startsWith('reservation.'))
        .map((event) => event.data.id);
    assert.deepEqual(await reservations(), [inFirst.id, inSecond.id]);

    // The member leaves the first themselves.
    expectStatus(
      await as(t.app, member).delete(`/api/organisations/${first.owner.organisationId}/users/${member.id}`),
      204,
    );
    assert.deepEqual(await reservations(), [inSecond.id]);

    // The second is archived: its events are out of service for its members too.
    expectStatus(
      await as(t.app, second.owner).patch(`/api/organisations/${invitationOrg}`, { isActive: false }),
      200,
    );
    assert.deepEqual(await reservations(), []);
  });
});
