import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Actor, personActor } from '../../../src/lib/actor.js';
import { sha256 } from '../../../src/lib/crypto.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { createCalendar, createEvent, defaultCalendarId, rangeQuery } from '../../helpers/calendars.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { scopedAgent } from '../../helpers/tool-harness.js';

const JUNE = rangeQuery('2025-06-01T00:00:00Z', '2025-07-01T00:00:00Z');

describe('people groups', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function createGroup(owner: SignedInUser, name = 'Family'): Promise<{ id: number }> {
    return expectStatus(await as(t.app, owner).post('/api/user-groups', { name }), 201);
  }
  async function invite(owner: SignedInUser, groupId: number, body: Record<string, unknown> = {}) {
    return expectStatus(await as(t.app, owner).post(`/api/user-groups/${groupId}/invites`, body), 201) as {
      token: string;
      expiresAt: string;
      groupName: string;
    };
  }
  async function join(user: SignedInUser, token: string) {
    return expectStatus(await as(t.app, user).post('/api/user-groups/invites/accept', { token }), 200);
  }
  /** A group owned by `owner` with `members` joined through invites. */
  async function groupWith(owner: SignedInUser, ...members: SignedInUser[]) {
    const group = await createGroup(owner);
    for (const member of members) await join(member, (await invite(owner, group.id)).token);
    return group.id;
  }
  const attach = (user: SignedInUser, groupId: number, calendarIds: number[]) =>
    as(t.app, user).post(`/api/user-groups/${groupId}/calendars/attach`, { calendarIds });
  const detach = (user: SignedInUser, groupId: number, calendarIds: number[]) =>
    as(t.app, user).post(`/api/user-groups/${groupId}/calendars/detach`, { calendarIds });

  test('create, list and read a group', async () => {
    const owner = await registerUser(t.app, 'Alice');
    const created = await createGroup(owner, ' Family ');
    assert.deepEqual(created, {
      id: created.id,
      name: 'Family',
      ownerId: owner.id,
      members: [{ userId: owner.id, name: 'Alice', role: 'owner' }],
      calendars: [],
    });
    const list = expectStatus(await as(t.app, owner).get('/api/user-groups'), 200);
    assert.equal(list.length, 1);
    assert.deepEqual(Object.keys(list[0]).sort(), [
      'createdAt',
      'id',
      'memberCount',
      'name',
      'ownerId',
      'role',
    ]);
    assert.equal(list[0].role, 'owner');
    assert.equal(list[0].memberCount, 1);
    assert.deepEqual(
      expectStatus(await as(t.app, owner).get(`/api/user-groups/${created.id}`), 200),
      created,
    );
    expectError(
      await as(t.app, owner).post('/api/user-groups', { name: 'X', ownerId: 5 }),
      400,
      'VALIDATION_FAILED',
    );
  });

  test('an invite is single use, reveals no member, and makes the accepter a member', async () => {
    const owner = await registerUser(t.app, 'Alice');
    const bob = await registerUser(t.app, 'Bob');
    const carol = await registerUser(t.app, 'Carol');
    const group = await createGroup(owner);
    const before = Date.now();
    const created = await invite(owner, group.id);
    assert.deepEqual(Object.keys(created).sort(), ['expiresAt', 'groupName', 'token']);
    assert.equal(created.groupName, 'Family');
    const hours = (Date.parse(created.expiresAt) - before) / 3_600_000;
    assert.ok(hours > 167.9 && hours < 168.1, `default expiry 7 days, got ${hours} h`);
    // Only the hash is stored.
    const stored = await t.db.kysely.selectFrom('userGroupInvites').select('tokenHash').execute();
    assert.ok(stored.some((row) => row.tokenHash === sha256(created.token)));
    assert.ok(stored.every((row) => row.tokenHash !== created.token));

    const joined = await join(bob, created.token);
    assert.deepEqual(
      joined.members.map((m: { userId: number; role: string }) => [m.userId, m.role]),
      [
        [owner.id, 'owner'],
        [bob.id, 'member'],
      ],
    );
    assert.equal(expectStatus(await as(t.app, bob).get('/api/user-groups'), 200)[0].role, 'member');

    expectError(
      await as(t.app, carol).post('/api/user-groups/invites/accept', { token: created.token }),
      409,
      'INVITE_ALREADY_USED',
    );
    expectError(await as(t.app, carol).get(`/api/user-groups/${group.id}`), 404, 'NOT_FOUND');
    expectError(
      await as(t.app, carol).post('/api/user-groups/invites/accept', { token: 'not-a-real-token' }),
      404,
      'NOT_FOUND',
    );
    // Only the owner invites: a member is refused, an outsider does not see the group.
    expectError(await as(t.app, bob).post(`/api/user-groups/${group.id}/invites`, {}), 403, 'FORBIDDEN');
    expectError(await as(t.app, carol).post(`/api/user-groups/${group.id}/invites`, {}), 404, 'NOT_FOUND');
  });

  test('an expired invite answers 410 INVITE_EXPIRED; expiry is 1..720 hours', async () => {
    const owner = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const group = await createGroup(owner);
    const shortLived = await invite(owner, group.id, { expiresInHours: 1 });
    const hours = (Date.parse(shortLived.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > 0.9 && hours <= 1, `expiry one hour, got ${hours} h`);
    await t.db.kysely
      .updateTable('userGroupInvites')
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where('tokenHash', '=', sha256(shortLived.token))
      .execute();
    expectError(
      await as(t.app, bob).post('/api/user-groups/invites/accept', { token: shortLived.token }),
      410,
      'INVITE_EXPIRED',
    );
    expectError(await as(t.app, bob).get(`/api/user-groups/${group.id}`), 404, 'NOT_FOUND');
    const api = as(t.app, owner);
    expectError(
      await api.post(`/api/user-groups/${group.id}/invites`, { expiresInHours: 0 }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api.post(`/api/user-groups/${group.id}/invites`, { expiresInHours: 721 }),
      400,
      'VALIDATION_FAILED',
    );
    const longest = await invite(owner, group.id, { expiresInHours: 720 });
    assert.ok(Date.parse(longest.expiresAt) > Date.now() + 719 * 3_600_000);
  });

  test('accepting while already a member leaves the invite unused for someone else', async () => {
    const owner = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const group = await createGroup(owner);
    const { token } = await invite(owner, group.id);
    assert.equal((await join(owner, token)).members.length, 1);
    assert.equal((await join(bob, token)).members.length, 2);
  });

  test('an attached calendar is readable to members, read-only, and stops being readable after detach', async () => {
    const alice = await registerUser(t.app, 'Alice');
    const bob = await registerUser(t.app, 'Bob');
    const groupId = await groupWith(alice, bob);
    const family = await createCalendar(t.app, alice, { name: 'Family' });
    const event = await createEvent(t.app, alice, family.id, { title: 'Dinner' });
    const alicesDefault = await defaultCalendarId(t.app, alice);
    const privateEvent = await createEvent(t.app, alice, alicesDefault, { title: 'Private' });
    const bobApi = as(t.app, bob);

    // Before sharing: nothing.
    expectError(await bobApi.get(`/api/calendars/${family.id}`), 404, 'NOT_FOUND');
    expectError(await bobApi.get(`/api/calendars/${family.id}/events?${JUNE}`), 404, 'NOT_FOUND');

    const details = expectStatus(await attach(alice, groupId, [family.id]), 200);
    assert.deepEqual(details.calendars, [{ calendarId: family.id, name: 'Family', ownerId: alice.id }]);
    expectStatus(await attach(alice, groupId, [family.id]), 200);
    assert.equal(
      expectStatus(await bobApi.get(`/api/user-groups/${groupId}`), 200).calendars.length,
      1,
      'attaching twice shares once',
    );

    const shared = expectStatus(await bobApi.get(`/api/calendars/${family.id}`), 200);
    assert.equal(shared.accessRole, 'reader');
    assert.equal(shared.ownerId, alice.id);
    const bobsList = expectStatus(await bobApi.get('/api/calendars'), 200);
    assert.deepEqual(
      bobsList.map((c: { id: number; accessRole: string }) => [c.id, c.accessRole]),
      [
        [await defaultCalendarId(t.app, bob), 'owner'],
        [family.id, 'reader'],
      ],
    );
    // The owner, a member of the same group, lists the shared calendar once, as its owner.
    const alicesList = expectStatus(await as(t.app, alice).get('/api/calendars'), 200);
    assert.deepEqual(
      alicesList.map((c: { id: number; accessRole: string }) => [c.id, c.accessRole]),
      [
        [alicesDefault, 'owner'],
        [family.id, 'owner'],
      ],
    );
    const occurrences = expectStatus(await bobApi.get(`/api/calendars/${family.id}/events?${JUNE}`), 200);
    assert.deepEqual(
      occurrences.map((o: { eventId: number }) => o.eventId),
      [event.id],
    );
    assert.equal(expectStatus(await bobApi.get(`/api/events/${event.id}`), 200).title, 'Dinner');

    // Read-only: the member can see it, so writes answer 403.
    expectError(await bobApi.patch(`/api/events/${event.id}`, { title: 'Mine' }), 403, 'FORBIDDEN');
    expectError(await bobApi.delete(`/api/events/${event.id}`), 403, 'FORBIDDEN');
    expectError(
      await bobApi.post(`/api/calendars/${family.id}/events`, {
        title: 'Sneaky',
        startTime: '2025-06-03T09:00:00Z',
        endTime: '2025-06-03T10:00:00Z',
      }),
      403,
      'FORBIDDEN',
    );
    expectError(await bobApi.patch(`/api/calendars/${family.id}`, { name: 'Mine' }), 403, 'FORBIDDEN');
    expectError(await bobApi.delete(`/api/calendars/${family.id}`), 403, 'FORBIDDEN');
    expectError(await attach(bob, groupId, [family.id]), 404, 'NOT_FOUND');
    expectError(await detach(bob, groupId, [family.id]), 404, 'NOT_FOUND');

    // Nothing else of Alice's.
    expectError(await bobApi.get(`/api/calendars/${alicesDefault}`), 404, 'NOT_FOUND');
    expectError(await bobApi.get(`/api/calendars/${alicesDefault}/events?${JUNE}`), 404, 'NOT_FOUND');
    expectError(await bobApi.get(`/api/events/${privateEvent.id}`), 404, 'NOT_FOUND');

    const afterDetach = expectStatus(await detach(alice, groupId, [family.id]), 200);
    assert.deepEqual(afterDetach.calendars, []);
    expectError(await bobApi.get(`/api/calendars/${family.id}`), 404, 'NOT_FOUND');
    expectError(await bobApi.get(`/api/calendars/${family.id}/events?${JUNE}`), 404, 'NOT_FOUND');
    expectError(await bobApi.get(`/api/events/${event.id}`), 404, 'NOT_FOUND');
    assert.equal(expectStatus(await bobApi.get('/api/calendars'), 200).length, 1);
  });

  test('leaving takes the leaver out of shared calendars both ways', async () => {
    const alice = await registerUser(t.app, 'Alice');
    const bob = await registerUser(t.app, 'Bob');
    const groupId = await groupWith(alice, bob);
    const alicesCalendar = await createCalendar(t.app, alice, { name: 'Alice shared' });
    const bobsCalendar = await createCalendar(t.app, bob, { name: 'Bob shared' });
    expectStatus(await attach(alice, groupId, [alicesCalendar.id]), 200);
    expectStatus(await attach(bob, groupId, [bobsCalendar.id]), 200);
    expectStatus(await as(t.app, alice).get(`/api/calendars/${bobsCalendar.id}/events?${JUNE}`), 200);
    expectStatus(await as(t.app, bob).get(`/api/calendars/${alicesCalendar.id}/events?${JUNE}`), 200);

    expectStatus(await as(t.app, bob).post(`/api/user-groups/${groupId}/leave`), 204);
    expectError(
      await as(t.app, bob).get(`/api/calendars/${alicesCalendar.id}/events?${JUNE}`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await as(t.app, alice).get(`/api/calendars/${bobsCalendar.id}/events?${JUNE}`),
      404,
      'NOT_FOUND',
    );
    const details = expectStatus(await as(t.app, alice).get(`/api/user-groups/${groupId}`), 200);
    assert.deepEqual(
      details.calendars.map((c: { calendarId: number }) => c.calendarId),
      [alicesCalendar.id],
    );
    assert.deepEqual(
      details.members.map((m: { userId: number }) => m.userId),
      [alice.id],
    );
    expectError(await as(t.app, bob).get(`/api/user-groups/${groupId}`), 404, 'NOT_FOUND');
    // Bob's calendar itself is untouched.
    expectStatus(await as(t.app, bob).get(`/api/calendars/${bobsCalendar.id}`), 200);
  });

  test("a share counts only while the calendar's owner is a member (a stale attachment exposes nothing)", async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const outsider = await registerUser(t.app);
    const groupId = await groupWith(alice, bob);
    const outsiders = await createCalendar(t.app, outsider);
    // As if an attach had raced with the owner's removal from the group.
    await t.db.kysely
      .insertInto('userGroupCalendars')
      .values({ groupId, calendarId: outsiders.id, createdAt: new Date().toISOString() })
      .execute();
    expectError(await as(t.app, bob).get(`/api/calendars/${outsiders.id}`), 404, 'NOT_FOUND');
    expectError(await as(t.app, bob).get(`/api/calendars/${outsiders.id}/events?${JUNE}`), 404, 'NOT_FOUND');
    assert.equal(expectStatus(await as(t.app, bob).get('/api/calendars'), 200).length, 1);
    assert.deepEqual(
      expectStatus(await as(t.app, alice).get(`/api/user-groups/${groupId}`), 200).calendars,
      [],
    );
    // Once the owner joins, the share is live.
    await join(outsider, (await invite(alice, groupId)).token);
    assert.equal(
      expectStatus(await as(t.app, bob).get(`/api/calendars/${outsiders.id}`), 200).accessRole,
      'reader',
    );
  });

  test('only calendars you own can be attached, all or nothing', async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const outsider = await registerUser(t.app);
    const groupId = await groupWith(alice, bob);
    const own = await createCalendar(t.app, bob);
    const alices = await defaultCalendarId(t.app, alice);
    expectError(await attach(bob, groupId, [own.id, alices]), 404, 'NOT_FOUND');
    expectError(await attach(bob, groupId, [own.id, 999_999]), 404, 'NOT_FOUND');
    assert.deepEqual(
      expectStatus(await as(t.app, bob).get(`/api/user-groups/${groupId}`), 200).calendars,
      [],
    );
    const outsiders = await defaultCalendarId(t.app, outsider);
    expectError(await attach(outsider, groupId, [outsiders]), 404, 'NOT_FOUND');
    expectError(await attach(bob, groupId, []), 400, 'VALIDATION_FAILED');
    // Any member may share their own calendars.
    assert.equal(expectStatus(await attach(bob, groupId, [own.id]), 200).calendars[0].ownerId, bob.id);
    // Deleting a shared calendar removes it from the group.
    expectStatus(await as(t.app, bob).delete(`/api/calendars/${own.id}`), 204);
    assert.deepEqual(
      expectStatus(await as(t.app, alice).get(`/api/user-groups/${groupId}`), 200).calendars,
      [],
    );
  });

  test('the owner cannot leave but can hand the group over; only the owner changes the group', async () => {
    const alice = await registerUser(t.app, 'Alice');
    const bob = await registerUser(t.app, 'Bob');
    const carol = await registerUser(t.app, 'Carol');
    const groupId = await groupWith(alice, bob);
    const url = `/api/user-groups/${groupId}`;

    expectError(await as(t.app, alice).post(`${url}/leave`), 409, 'CONFLICT');
    expectError(await as(t.app, bob).patch(url, { name: 'Bob rules' }), 403, 'FORBIDDEN');
    expectError(await as(t.app, alice).patch(url, { ownerId: carol.id }), 400, 'VALIDATION_FAILED');

    const renamed = expectStatus(await as(t.app, alice).patch(url, { name: 'Household' }), 200);
    assert.equal(renamed.name, 'Household');
    const handed = expectStatus(await as(t.app, alice).patch(url, { ownerId: bob.id }), 200);
    assert.equal(handed.ownerId, bob.id);
    assert.deepEqual(
      handed.members.map((m: { userId: number; role: string }) => [m.userId, m.role]),
      [
        [bob.id, 'owner'],
        [alice.id, 'member'],
      ],
    );
    expectError(await as(t.app, alice).post(`${url}/invites`), 403, 'FORBIDDEN');
    expectStatus(await as(t.app, alice).post(`${url}/leave`), 204);
    expectError(await as(t.app, alice).get(url), 404, 'NOT_FOUND');
  });

  test('the owner removes members (their calendars leave with them); members cannot', async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const carol = await registerUser(t.app);
    const stranger = await registerUser(t.app);
    const groupId = await groupWith(alice, bob, carol);
    const bobs = await createCalendar(t.app, bob);
    expectStatus(await attach(bob, groupId, [bobs.id]), 200);
    const url = `/api/user-groups/${groupId}/members`;

    expectError(await as(t.app, carol).delete(`${url}/${bob.id}`), 403, 'FORBIDDEN');
    expectError(await as(t.app, alice).delete(`${url}/${stranger.id}`), 404, 'NOT_FOUND');
    expectStatus(await as(t.app, alice).delete(`${url}/${bob.id}`), 204);
    const details = expectStatus(await as(t.app, alice).get(`/api/user-groups/${groupId}`), 200);
    assert.deepEqual(details.calendars, []);
    assert.equal(details.members.length, 2);
    expectError(await as(t.app, carol).get(`/api/calendars/${bobs.id}`), 404, 'NOT_FOUND');
    expectError(await as(t.app, bob).get(`/api/user-groups/${groupId}`), 404, 'NOT_FOUND');

    // Removing yourself is leaving; the owner cannot.
    expectStatus(await as(t.app, carol).delete(`${url}/${carol.id}`), 204);
    expectError(await as(t.app, alice).delete(`${url}/${alice.id}`), 409, 'CONFLICT');
    assert.equal(
      expectStatus(await as(t.app, alice).get(`/api/user-groups/${groupId}`), 200).members.length,
      1,
    );
  });

  test('deleting a group ends the sharing; only the owner may', async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const groupId = await groupWith(alice, bob);
    const family = await createCalendar(t.app, alice);
    expectStatus(await attach(alice, groupId, [family.id]), 200);
    expectError(await as(t.app, bob).delete(`/api/user-groups/${groupId}`), 403, 'FORBIDDEN');
    expectStatus(await as(t.app, alice).delete(`/api/user-groups/${groupId}`), 204);
    expectError(await as(t.app, alice).get(`/api/user-groups/${groupId}`), 404, 'NOT_FOUND');
    expectError(await as(t.app, bob).get(`/api/calendars/${family.id}`), 404, 'NOT_FOUND');
    expectStatus(await as(t.app, alice).get(`/api/calendars/${family.id}`), 200);
    assert.deepEqual(expectStatus(await as(t.app, bob).get('/api/user-groups'), 200), []);
  });

  test("another user's group answers 404 on every route", async () => {
    const owner = await registerUser(t.app);
    const stranger = await registerUser(t.app);
    const groupId = await groupWith(owner);
    const calendar = await defaultCalendarId(t.app, stranger);
    const api = as(t.app, stranger);
    const url = `/api/user-groups/${groupId}`;
    expectError(await api.get(url), 404, 'NOT_FOUND');
    expectError(await api.patch(url, { name: 'Mine' }), 404, 'NOT_FOUND');
    expectError(await api.delete(url), 404, 'NOT_FOUND');
    expectError(await api.post(`${url}/leave`), 404, 'NOT_FOUND');
    expectError(await api.post(`${url}/invites`), 404, 'NOT_FOUND');
    expectError(await api.delete(`${url}/members/${owner.id}`), 404, 'NOT_FOUND');
    expectError(await attach(stranger, groupId, [calendar]), 404, 'NOT_FOUND');
    expectError(await detach(stranger, groupId, [calendar]), 404, 'NOT_FOUND');
    assert.deepEqual(expectStatus(await api.get('/api/user-groups'), 200), []);
  });

  test('a scope passed to the service restricts group reads and writes, and calendars shared through groups', async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const { userGroups, calendars, events } = t.app.services;
    const g1 = await groupWith(alice, bob);
    const g2 = await groupWith(alice, bob);
    const bobsCalendar = await createCalendar(t.app, bob, { name: 'Bob' });
    await createEvent(t.app, bob, bobsCalendar.id);
    expectStatus(await attach(bob, g2, [bobsCalendar.id]), 200);
    const alicesOwn = await createCalendar(t.app, alice, { name: 'Mine' });
    const alicesOther = await createCalendar(t.app, alice, { name: 'Other' });

    const full = personActor(alice.id);
    const onlyG1 = scopedAgent(alice.id, { groupIds: [g1] });
    assert.deepEqual(
      (await userGroups.list(onlyG1)).map((g) => g.id),
      [g1],
    );
    assert.equal((await userGroups.list(full)).length, 2);
    assert.equal((await userGroups.details(onlyG1, g1)).id, g1);
    await assert.rejects(userGroups.details(onlyG1, g2), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.update(onlyG1, g2, { name: 'X' }), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.delete(onlyG1, g2), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.createInvite(onlyG1, g2), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.attachCalendars(onlyG1, g2, [alicesOwn.id]), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.detachCalendars(onlyG1, g2, [alicesOwn.id]), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.leave(onlyG1, g2), { code: 'NOT_FOUND' });
    await assert.rejects(userGroups.create(onlyG1, { name: 'New' }), { code: 'FORBIDDEN' });
    assert.equal((await userGroups.createInvite(onlyG1, g1)).groupName, 'Family');

    // Attaching needs both the group and the calendar in scope.
    const narrow = scopedAgent(alice.id, { groupIds: [g1], calendarIds: [alicesOwn.id] });
    await assert.rejects(userGroups.attachCalendars(narrow, g1, [alicesOther.id]), { code: 'NOT_FOUND' });
    assert.deepEqual(
      (await userGroups.attachCalendars(narrow, g1, [alicesOwn.id])).calendars.map((c) => c.calendarId),
      [alicesOwn.id],
    );
    await assert.rejects(userGroups.detachCalendars(narrow, g1, [alicesOther.id]), { code: 'NOT_FOUND' });

    // Bob's calendar is shared through g2 only: a g1-scoped actor cannot read it.
    const range = { from: '2025-06-01T00:00:00Z', to: '2025-07-01T00:00:00Z' };
    assert.equal((await events.listOccurrences(full, bobsCalendar.id, range)).length, 1);
    await assert.rejects(events.listOccurrences(onlyG1, bobsCalendar.id, range), { code: 'NOT_FOUND' });
    await assert.rejects(calendars.get(onlyG1, bobsCalendar.id), { code: 'NOT_FOUND' });
    assert.ok(!(await calendars.list(onlyG1)).some((c) => c.id === bobsCalendar.id));
    const onlyG2 = scopedAgent(alice.id, { groupIds: [g2] });
    assert.equal((await calendars.get(onlyG2, bobsCalendar.id)).accessRole, 'reader');
    assert.ok((await calendars.list(onlyG2)).some((c) => c.id === bobsCalendar.id));
    // ...and the calendar scope applies to shared calendars as well.
    const otherCalendars = scopedAgent(alice.id, { calendarIds: [alicesOwn.id] });
    await assert.rejects(calendars.get(otherCalendars, bobsCalendar.id), { code: 'NOT_FOUND' });

    // Accepting an invite to a group outside the scope is refused and leaves the invite unused.
    const carol = await registerUser(t.app);
    const token = (await invite(alice, g2)).token;
    await assert.rejects(userGroups.acceptInvite(scopedAgent(carol.id, { groupIds: [g1] }), token), {
      code: 'NOT_FOUND',
    });
    assert.equal((await userGroups.acceptInvite(scopedAgent(carol.id, { groupIds: [g2] }), token)).id, g2);
    assert.deepEqual(await userGroups.list(scopedAgent(carol.id, { groupIds: [] })), []);
  });

  test('an agent scoped to group G or calendar X sees no calendar shared through group H, nor its events', async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const { userGroups, calendars, events } = t.app.services;
    const g = await groupWith(alice, bob);
    const h = await groupWith(alice, bob);
    const x = await createCalendar(t.app, alice, { name: 'X' });
    const z = await createCalendar(t.app, bob, { name: 'Z' });
    const y = await createCalendar(t.app, bob, { name: 'Y' });
    const inZ = await createEvent(t.app, bob, z.id);
    const inY = await createEvent(t.app, bob, y.id);
    expectStatus(await attach(alice, g, [x.id]), 200);
    expectStatus(await attach(bob, g, [z.id]), 200);
    expectStatus(await attach(bob, h, [y.id]), 200);
    const shared = async (actor: Actor, groupId: number) =>
      (await userGroups.details(actor, groupId)).calendars.map((c) => c.calendarId).sort();
    const range = { from: '2025-06-01T00:00:00Z', to: '2025-07-01T00:00:00Z' };

    // Limited to group G: H and the calendar shared only through it do not exist.
    const onlyG = scopedAgent(alice.id, { groupIds: [g] });
    assert.deepEqual(await shared(onlyG, g), [x.id, z.id].sort());
    await assert.rejects(userGroups.details(onlyG, h), { code: 'NOT_FOUND' });
    assert.ok(!(await calendars.list(onlyG)).some((c) => c.id === y.id));
    await assert.rejects(calendars.get(onlyG, y.id), { code: 'NOT_FOUND' });
    await assert.rejects(events.get(onlyG, inY.id), { code: 'NOT_FOUND' });
    await assert.rejects(events.listOccurrences(onlyG, y.id, range), { code: 'NOT_FOUND' });
    assert.equal((await events.get(onlyG, inZ.id)).id, inZ.id);

    // Limited to calendar X: groups are not narrowed, but their other calendars are left out.
    const onlyX = scopedAgent(alice.id, { calendarIds: [x.id] });
    assert.equal((await userGroups.list(onlyX)).length, 2);
    assert.deepEqual(await shared(onlyX, g), [x.id]);
    assert.deepEqual(await shared(onlyX, h), []);
    assert.deepEqual(
      (await userGroups.attachCalendars(onlyX, h, [x.id])).calendars.map((c) => c.calendarId),
      [x.id],
    );
    assert.deepEqual(
      (await calendars.list(onlyX)).map((c) => c.id),
      [x.id],
    );
    await assert.rejects(events.get(onlyX, inZ.id), { code: 'NOT_FOUND' });
    await assert.rejects(events.update(onlyX, inY.id, { title: 'Changed' }), { code: 'NOT_FOUND' });
    // Joining through an invite answers the group without the calendars outside the scope.
    const carol = await registerUser(t.app);
    const joined = await userGroups.acceptInvite(
      scopedAgent(carol.id, { calendarIds: [] }),
      (await invite(alice, g)).token,
    );
    assert.deepEqual(joined.calendars, []);

    // The person sees every shared calendar, as before.
    assert.deepEqual(await shared(personActor(alice.id), g), [x.id, z.id].sort());
    assert.deepEqual(await shared(personActor(alice.id), h), [x.id, y.id].sort());
    assert.equal((await events.get(personActor(alice.id), inY.id)).title, 'Meeting');
  });
});
