import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AccessScope, personActor } from '../../../src/lib/actor.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { scopedAgent } from '../../helpers/tool-harness.js';

type Item = { id: number; name: string; groupId: number | null; expiresAt: string | null; quantity: number };

describe('household inventory', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function addItem(user: SignedInUser, body: Record<string, unknown> = {}): Promise<Item> {
    return expectStatus(await as(t.app, user).post('/api/household/items', { name: 'Milk', ...body }), 201);
  }
  async function listAll(user: SignedInUser, query = '', limit = 50): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | null = null;
    do {
      const url = `/api/household/items?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const body = expectStatus(await as(t.app, user).get(url), 200);
      items.push(...body.items);
      cursor = body.nextCursor;
    } while (cursor);
    return items;
  }
  /** A group owned by `owner` that `members` joined. */
  async function groupWith(owner: SignedInUser, ...members: SignedInUser[]): Promise<number> {
    const group = expectStatus(await as(t.app, owner).post('/api/user-groups', { name: 'Flat' }), 201);
    for (const member of members) {
      const invite = expectStatus(
        await as(t.app, owner).post(`/api/user-groups/${group.id}/invites`, {}),
        201,
      );
      expectStatus(
        await as(t.app, member).post('/api/user-groups/invites/accept', { token: invite.token }),
        200,
      );
    }
    return group.id;
  }

  test('create, read, change and delete a private item', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const created = expectStatus(
      await api.post('/api/household/items', {
        name: ' Rice ',
        quantity: 2.5,
        unit: 'kg',
        location: 'Pantry',
        expiresAt: '2026-01-31T00:00:00+01:00',
        notes: 'basmati',
      }),
      201,
    );
    assert.deepEqual(created, {
      id: created.id,
      name: 'Rice',
      quantity: 2.5,
      unit: 'kg',
      location: 'Pantry',
      expiresAt: '2026-01-30T23:00:00.000Z',
      notes: 'basmati',
      groupId: null,
      ownerId: user.id,
      createdAt: created.createdAt,
      updatedAt: created.updatedAt,
    });
    const plain = await addItem(user, { name: 'Salt' });
    assert.equal(plain.quantity, 1);
    assert.deepEqual(expectStatus(await api.get(`/api/household/items/${created.id}`), 200), created);
    const changed = expectStatus(
      await api.patch(`/api/household/items/${created.id}`, { quantity: 0, location: '', expiresAt: null }),
      200,
    );
    assert.equal(changed.quantity, 0);
    assert.equal(changed.location, null);
    assert.equal(changed.expiresAt, null);
    expectError(
      await api.post('/api/household/items', { name: 'X', quantity: -1 }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api.post('/api/household/items', { name: 'X', colour: 'red' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api.patch(`/api/household/items/${created.id}`, { ownerId: 9 }),
      400,
      'VALIDATION_FAILED',
    );
    expectStatus(await api.delete(`/api/household/items/${created.id}`), 204);
    expectError(await api.get(`/api/household/items/${created.id}`), 404, 'NOT_FOUND');
  });

  test("someone else's private items answer 404 and never show in their list", async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const item = await addItem(alice);
    const api = as(t.app, bob);
    expectError(await api.get(`/api/household/items/${item.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/household/items/${item.id}`, { quantity: 9 }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/household/items/${item.id}`), 404, 'NOT_FOUND');
    assert.deepEqual(await listAll(bob), []);
    assert.equal(
      expectStatus(await as(t.app, alice).get(`/api/household/items/${item.id}`), 200).quantity,
      1,
    );
  });

  test('items shared with a group: members read and write them, and lose them on leaving', async () => {
    const alice = await registerUser(t.app, 'Alice');
    const bob = await registerUser(t.app, 'Bob');
    const carol = await registerUser(t.app, 'Carol');
    const groupId = await groupWith(alice, bob);
    const shared = await addItem(alice, { name: 'Olive oil', groupId });
    const alicePrivate = await addItem(alice, { name: 'Chocolate' });
    const bobShared = await addItem(bob, { name: 'Coffee', groupId });

    // Bob sees the group's items, not Alice's private one.
    assert.deepEqual(
      (await listAll(bob)).map((item) => item.id).sort((a, b) => a - b),
      [shared.id, bobShared.id].sort((a, b) => a - b),
    );
    assert.equal(
      expectStatus(await as(t.app, bob).get(`/api/household/items/${shared.id}`), 200).name,
      'Olive oil',
    );
    expectError(await as(t.app, bob).get(`/api/household/items/${alicePrivate.id}`), 404, 'NOT_FOUND');
    // Any member may change a shared item; only its creator moves it.
    const changed = expectStatus(
      await as(t.app, bob).patch(`/api/household/items/${shared.id}`, { quantity: 0.5 }),
      200,
    );
    assert.equal(changed.quantity, 0.5);
    expectError(
      await as(t.app, bob).patch(`/api/household/items/${shared.id}`, { groupId: null }),
      403,
      'FORBIDDEN',
    );
    // Outsiders see nothing and cannot share into the group.
    expectError(await as(t.app, carol).get(`/api/household/items/${shared.id}`), 404, 'NOT_FOUND');
    expectError(
      await as(t.app, carol).post('/api/household/items', { name: 'X', groupId }),
      404,
      'NOT_FOUND',
    );
    expectError(await as(t.app, carol).get(`/api/household/items?groupId=${groupId}`), 404, 'NOT_FOUND');
    assert.deepEqual(await listAll(carol), []);
    expectError(
      await as(t.app, alice).patch(`/api/household/items/${alicePrivate.id}`, {
        groupId: await groupWith(carol),
      }),
      404,
      'NOT_FOUND',
    );

    // Bob leaves: the group's items are gone for him, his own shared item included.
    expectStatus(await as(t.app, bob).post(`/api/user-groups/${groupId}/leave`), 204);
    expectError(await as(t.app, bob).get(`/api/household/items/${shared.id}`), 404, 'NOT_FOUND');
    expectError(
      await as(t.app, bob).patch(`/api/household/items/${bobShared.id}`, { quantity: 3 }),
      404,
      'NOT_FOUND',
    );
    expectError(await as(t.app, bob).delete(`/api/household/items/${shared.id}`), 404, 'NOT_FOUND');
    assert.deepEqual(await listAll(bob), []);
    // Alice keeps them.
    assert.equal((await listAll(alice, `groupId=${groupId}`)).length, 2);

    // The creator makes an item private: other members lose it.
    const dave = await registerUser(t.app, 'Dave');
    const invite = expectStatus(await as(t.app, alice).post(`/api/user-groups/${groupId}/invites`, {}), 201);
    expectStatus(await as(t.app, dave).post('/api/user-groups/invites/accept', { token: invite.token }), 200);
    assert.equal((await listAll(dave)).length, 2);
    const unshared = expectStatus(
      await as(t.app, alice).patch(`/api/household/items/${shared.id}`, { groupId: null }),
      200,
    );
    assert.equal(unshared.groupId, null);
    assert.deepEqual(
      (await listAll(dave)).map((item) => item.id),
      [bobShared.id],
    );
    // Deleting the group hands each shared item back to its creator, private again.
    expectStatus(await as(t.app, alice).delete(`/api/user-groups/${groupId}`), 204);
    expectError(await as(t.app, alice).get(`/api/household/items/${bobShared.id}`), 404, 'NOT_FOUND');
    const returned = expectStatus(await as(t.app, bob).get(`/api/household/items/${bobShared.id}`), 200);
    assert.equal(returned.groupId, null);
  });

  test('the list filters by location, expiry and group, soonest expiry first, by cursor', async () => {
    const user = await registerUser(t.app);
    const friend = await registerUser(t.app);
    const groupId = await groupWith(user, friend);
    const days = [9, 3, 7, 1, 5];
    for (const [i, day] of days.entries())
      await addItem(user, {
        name: `Dated ${i}`,
        location: i % 2 === 0 ? 'Fridge' : 'Pantry',
        expiresAt: `2025-09-0${day}T12:00:00Z`,
        ...(i === 1 ? { groupId } : {}),
      });
    await addItem(user, { name: 'Undated', location: 'fridge' });
    await addItem(friend, { name: 'Friend shared', groupId, expiresAt: '2025-09-02T12:00:00Z' });
    await addItem(friend, { name: 'Friend private', expiresAt: '2025-09-02T12:00:00Z' });

    const all = await listAll(user, '', 2);
    assert.deepEqual(
      all.map((item) => item.name),
      ['Dated 3', 'Friend shared', 'Dated 1', 'Dated 4', 'Dated 2', 'Dated 0', 'Undated'],
    );
    assert.deepEqual(
      (await listAll(user, 'location=FRIDGE', 1)).map((item) => item.name),
      ['Dated 4', 'Dated 2', 'Dated 0', 'Undated'],
    );
    assert.deepEqual(
      (await listAll(user, `expiringBefore=${encodeURIComponent('2025-09-05T12:00:00Z')}`)).map(
        (item) => item.name,
      ),
      ['Dated 3', 'Friend shared', 'Dated 1'],
    );
    assert.deepEqual(
      (await listAll(user, `groupId=${groupId}`)).map((item) => item.name),
      ['Friend shared', 'Dated 1'],
    );
    assert.deepEqual(
      (await listAll(friend, `groupId=${groupId}&location=pantry`)).map((item) => item.name),
      ['Dated 1'],
    );
    expectError(await as(t.app, user).get('/api/household/items?cursor=abc'), 400, 'VALIDATION_FAILED');
    expectError(await as(t.app, user).get('/api/household/items?limit=500'), 400, 'VALIDATION_FAILED');
    expectError(
      await as(t.app, user).get('/api/household/items?expiringBefore=soon'),
      400,
      'VALIDATION_FAILED',
    );
  });

  test("an agent's group scope limits shared items to its groups; private items stay", async () => {
    const user = await registerUser(t.app);
    const friend = await registerUser(t.app);
    const kitchen = await groupWith(user, friend);
    const garage = await groupWith(user, friend);
    const mine = await addItem(user, { name: 'Private' });
    const inKitchen = await addItem(friend, { name: 'Kitchen', groupId: kitchen });
    const inGarage = await addItem(friend, { name: 'Garage', groupId: garage });
    const { household } = t.app.services;
    const names = async (scope: AccessScope) =>
      (await household.list(scopedAgent(user.id, scope), { limit: 50 })).items
        .map((item) => item.name)
        .sort();

    assert.deepEqual(await names({}), ['Garage', 'Kitchen', 'Private']);
    assert.deepEqual(await names({ groupIds: [kitchen] }), ['Kitchen', 'Private']);
    assert.deepEqual(await names({ groupIds: [] }), ['Private']);
    // Items belong to no calendar: a calendar scope hides none of them.
    assert.deepEqual(await names({ calendarIds: [] }), ['Garage', 'Kitchen', 'Private']);

    const scoped = scopedAgent(user.id, { groupIds: [kitchen] });
    assert.equal((await household.get(scoped, inKitchen.id)).name, 'Kitchen');
    assert.equal((await household.get(scoped, mine.id)).name, 'Private');
    await assert.rejects(household.get(scoped, inGarage.id), { code: 'NOT_FOUND' });
    await assert.rejects(household.update(scoped, inGarage.id, { quantity: 5 }), { code: 'NOT_FOUND' });
    await assert.rejects(household.delete(scoped, inGarage.id), { code: 'NOT_FOUND' });
    await assert.rejects(household.create(scoped, { name: 'X', groupId: garage }), { code: 'NOT_FOUND' });
    await assert.rejects(household.list(scoped, { groupId: garage, limit: 50 }), { code: 'NOT_FOUND' });
    await assert.rejects(household.update(scoped, mine.id, { groupId: garage }), { code: 'NOT_FOUND' });
    assert.equal((await household.create(scoped, { name: 'Y', groupId: kitchen })).groupId, kitchen);
    // Nothing changed in the garage.
    assert.equal((await household.get(personActor(user.id), inGarage.id)).quantity, 1);
  });
});
