import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { feedsOfMembersWhoLeft } from '../../../src/modules/feeds/migrations/0055_feeds_of_members_who_left.js';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus, ok } from '../../helpers/http.js';
import { memberWithRole, ownerWithOrganisation } from '../../helpers/organisations.js';
import { PRIVACY } from '../../helpers/privacy.js';

/**
 * Membership ends access (DECISIONS.md "What the review found", issue 49 item 6): the
 * resource feeds a member made are revoked when they leave or are removed (the others'
 * stay, and so do the feeds of their own calendars), and an organisation that is not
 * active serves no feed (404) while it is archived. An erased account belongs nowhere:
 * its feeds end with it.
 */
describe('feeds end with the membership and the organisation', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const fetchFeed = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });
  const feedOf = async (user: SignedInUser, path: string) =>
    (expectStatus(await call(t.app, user, 'POST', `${path}/feed`), 201) as { url: string }).url;

  async function organisation() {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner);
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const desk = await createResource(t.app, owner, { name: 'Desk', resourceTypeId: type.id });
    return { owner, room, desk };
  }

  test('a member removed, or leaving, loses the resource feeds they made; nobody else does', async () => {
    for (const leaves of [false, true]) {
      const { owner, room, desk } = await organisation();
      const manager = await memberWithRole(t.app, owner, 'MANAGER');
      const theirs = await feedOf(manager, `/api/resources/${room.id}`);
      const owners = await feedOf(owner, `/api/resources/${desk.id}`);
      const calendars = expectStatus(await call(t.app, manager, 'GET', '/api/calendars'), 200) as Array<{
        id: number;
      }>;
      const ownCalendar = await feedOf(manager, `/api/calendars/${calendars[0]!.id}`);
      for (const url of [theirs, owners, ownCalendar]) assert.equal((await fetchFeed(url)).statusCode, 200);

      const by = leaves ? manager : owner;
      expectStatus(
        await call(t.app, by, 'DELETE', `/api/organisations/${owner.organisationId}/users/${manager.id}`),
        204,
      );
      expectStatus(await fetchFeed(theirs), 404, 'NOT_FOUND');
      assert.equal((await fetchFeed(owners)).statusCode, 200, "the owner's feed stays");
      assert.equal((await fetchFeed(ownCalendar)).statusCode, 200, 'their own calendar stays theirs');
      // Revoked, not hidden: it stays gone should they come back.
      await memberWithRoleAgain(owner, manager);
      expectStatus(await fetchFeed(theirs), 404, 'NOT_FOUND');
    }
  });

  async function memberWithRoleAgain(owner: { organisationId: number } & SignedInUser, user: SignedInUser) {
    expectStatus(
      await call(t.app, owner, 'POST', `/api/organisations/${owner.organisationId}/users/assign`, {
        userId: user.id,
        role: 'MANAGER',
      }),
      201,
    );
    expectStatus(
      await call(t.app, user, 'POST', `/api/organisations/${owner.organisationId}/invitation/accept`),
      200,
    );
  }

  test('an erased account leaves every organisation: the resource feeds it made end too', async () => {
    const { owner, room } = await organisation();
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    const url = await feedOf(manager, `/api/resources/${room.id}`);
    const request = await ok(t.app, manager, 'POST', `${PRIVACY}/requests`, {
      requestType: 'delete',
      reason: 'Please forget me',
      confirmEmail: manager.email,
    });
    await t.app.services.privacy.operator.process(request.id);
    await t.app.jobs.idle();
    assert.equal((await t.app.services.privacy.operator.show(request.id)).request.status, 'completed');
    expectStatus(await fetchFeed(url), 404, 'NOT_FOUND');
  });

  test('migration 0055: feeds made by someone who left before removal revoked them are revoked', async () => {
    const { owner, room, desk } = await organisation();
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    const theirs = await feedOf(manager, `/api/resources/${room.id}`);
    const owners = await feedOf(owner, `/api/resources/${desk.id}`);
    const calendars = expectStatus(await call(t.app, manager, 'GET', '/api/calendars'), 200) as Array<{
      id: number;
    }>;
    const ownCalendar = await feedOf(manager, `/api/calendars/${calendars[0]!.id}`);
    // As a removal left it before: the membership gone, the feed still answering.
    await t.db.kysely
      .deleteFrom('organisationMemberships')
      .where('organisationId', '=', owner.organisationId)
      .where('userId', '=', manager.id)
      .execute();
    assert.equal((await fetchFeed(theirs)).statusCode, 200);
    await feedsOfMembersWhoLeft().up(t.db.kysely as never);
    expectStatus(await fetchFeed(theirs), 404, 'NOT_FOUND');
    assert.equal((await fetchFeed(owners)).statusCode, 200);
    assert.equal((await fetchFeed(ownCalendar)).statusCode, 200);
  });

  test("an archived organisation's feeds answer 404 until it is restored", async () => {
    const { owner, room } = await organisation();
    const url = await feedOf(owner, `/api/resources/${room.id}`);
    assert.equal((await fetchFeed(url)).statusCode, 200);
    const organisationUrl = `/api/organisations/${owner.organisationId}`;
    expectStatus(await call(t.app, owner, 'PATCH', organisationUrl, { isActive: false }), 200);
    expectStatus(await fetchFeed(url), 404, 'NOT_FOUND');
    expectStatus(await call(t.app, owner, 'PATCH', organisationUrl, { isActive: true }), 200);
    assert.equal((await fetchFeed(url)).statusCode, 200);
  });
});
