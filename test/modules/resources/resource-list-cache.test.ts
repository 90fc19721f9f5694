import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.js';
import { createResourceRepo } from '../../../src/modules/resources/repo.js';
import { createTestApp, registerUser, type TestApp, twoInstances } from '../../helpers/app.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

// The resource list's answers are cached under a per-organisation version that
// database triggers raise (migration 0015). After every kind of write, whoever writes
// it (this instance, another instance on the same database, direct SQL), the next
// answer must equal a fresh, uncached read.

/** The list as the repo reads it, uncached, in the JSON the route writes. */
async function freshList(db: Db, organisationId: number, resourceTypeId?: number) {
  return JSON.stringify(await createResourceRepo(db.kysely, db.dialect).list(organisationId, resourceTypeId));
}

describe('resource list cache: exact after every kind of write, across instances', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let db: Db;
  let close: () => Promise<void>;
  let owner: OrgOwner;
  let rooms: number;
  let desks: number;

  const assertFresh = async (context: string) => {
    for (const [index, app] of [first, second].entries()) {
      for (const typeId of [undefined, rooms, desks]) {
        const url = typeId === undefined ? '/api/resources' : `/api/resources?resourceTypeId=${typeId}`;
        const response = await app.inject({ method: 'GET', url, headers: owner.auth });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(
          response.body,
          await freshList(db, owner.organisationId, typeId),
          `${context}: ${url} on instance ${index + 1}`,
        );
      }
    }
  };

  before(async () => {
    ({ first, second, db, close } = await twoInstances());
    owner = await ownerWithOrganisation(first);
    rooms = (await createType(first, owner, { name: 'Rooms' })).id;
    desks = (await createType(first, owner, { name: 'Desks', bookingMode: 'POOL' })).id;
    await createResource(first, owner, { name: 'Room', resourceTypeId: rooms, capacity: 1 });
    await createResource(first, owner, { name: 'Pod', resourceTypeId: desks, capacity: 3 });
    await assertFresh('seeded (caches warm)');
  });

  after(() => close());

  test('created, changed (lanes follow), moved to another type and deleted through the API', async () => {
    const hall = await createResource(second, owner, { name: 'Hall', resourceTypeId: rooms, capacity: 2 });
    await assertFresh('created on the second instance');
    const patch = async (body: Record<string, unknown>) => {
      const r = await first.inject({
        method: 'PATCH',
        url: `/api/resources/${hall.id}`,
        headers: owner.auth,
        payload: body,
      });
      assert.equal(r.statusCode, 200, r.body);
    };
    await patch({ name: 'Great hall', capacity: 4 });
    await assertFresh('renamed, two lanes added');
    await patch({ resourceTypeId: desks });
    await assertFresh('moved to another type');
    const removed = await second.inject({
      method: 'DELETE',
      url: `/api/resources/${hall.id}/cascade`,
      headers: owner.auth,
    });
    assert.equal(removed.statusCode, 204, removed.body);
    await assertFresh('deleted with its lanes');
  });

  test('rows inserted, updated and deleted by direct SQL (the privacy jobs, an operator)', async () => {
    const now = new Date().toISOString();
    const { id } = await db.kysely
      .insertInto('resources')
      .values({
        organisationId: owner.organisationId,
        resourceTypeId: rooms,
        name: 'Inserted directly',
        description: null,
        capacity: 1,
        managedById: owner.id,
        schedulePolicy: null,
        parentResourceId: null,
        isCapacityChild: false,
        capacityLaneIndex: null,
        publicToken: `direct-${Date.now()}`,
        isActive: true,
        createdAt: now,
        updatedAt: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await assertFresh('direct insert');
    // What erasure does to a manager: no updated_at is touched.
    await db.kysely.updateTable('resources').set({ managedById: null }).where('id', '=', id).execute();
    await assertFresh('direct update');
    await db.kysely.deleteFrom('resources').where('id', '=', id).execute();
    await assertFresh('direct delete');
  });

  test('the tenant check runs on every answer, cached or not', async () => {
    const stranger = await registerUser(first, 'Stranger');
    const list = await first.inject({ method: 'GET', url: '/api/resources', headers: stranger.auth });
    assert.equal(list.statusCode, 409, list.body);
    assert.equal(list.json().error.code, 'NO_ACTIVE_ORGANISATION');
    const added = await first.inject({
      method: 'POST',
      url: `/api/organisations/${owner.organisationId}/users/assign`,
      headers: owner.auth,
      payload: { userId: stranger.id, role: 'MEMBER' },
    });
    assert.equal(added.statusCode, 201, added.body);
    const accepted = await first.inject({
      method: 'POST',
      url: `/api/organisations/${owner.organisationId}/invitation/accept`,
      headers: stranger.auth,
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const asMember = await first.inject({ method: 'GET', url: '/api/resources', headers: stranger.auth });
    assert.equal(
      asMember.body,
      await freshList(db, owner.organisationId),
      'a member reads the cached answer',
    );
    const left = await first.inject({
      method: 'DELETE',
      url: `/api/organisations/${owner.organisationId}/users/${stranger.id}`,
      headers: owner.auth,
    });
    assert.ok(left.statusCode < 300, left.body);
    const afterLeaving = await first.inject({ method: 'GET', url: '/api/resources', headers: stranger.auth });
    assert.equal(afterLeaving.statusCode, 409, 'no longer a member: no answer, cached or not');
  });
});

describe('resource list cache: the triggers are what keeps it exact', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('without the trigger on resource updates, a direct rename leaves a stale answer', async () => {
    const owner = await ownerWithOrganisation(t.app);
    const type = (await createType(t.app, owner)).id;
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type, capacity: 1 });
    const before = await t.app.inject({ method: 'GET', url: '/api/resources', headers: owner.auth });
    assert.equal(before.body, await freshList(t.db, owner.organisationId));
    const triggers =
      t.db.dialect === 'postgres'
        ? ['drop trigger resource_list_update on resources']
        : ['drop trigger resource_list_update_old', 'drop trigger resource_list_update_new'];
    for (const statement of triggers) await sql.raw(statement).execute(t.db.kysely);
    await t.db.kysely.updateTable('resources').set({ name: 'Renamed' }).where('id', '=', room.id).execute();
    const fresh = await freshList(t.db, owner.organisationId);
    assert.notEqual(fresh, before.body, 'the rename changes the answer');
    const after = await t.app.inject({ method: 'GET', url: '/api/resources', headers: owner.auth });
    assert.equal(after.body, before.body, 'the cache answers as before: nothing told it');
  });
});
