import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { personActor } from '../../../src/lib/actor.js';
import type { DomainError } from '../../../src/lib/errors.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { call, expectStatus, validationDetails } from '../../helpers/http.js';
import {
  accept,
  addWithRole,
  createOrganisation,
  createTeam,
  invite,
  me,
  type Role,
} from '../../helpers/organisations.js';

describe('organisation membership', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const membersOf = async (organisationId: number, viewer: Parameters<typeof call>[1]) =>
    expectStatus(
      await call(t.app, viewer, 'GET', `/api/organisations/${organisationId}/users/list`),
      200,
    ) as Array<{
      userId: number;
      role: Role;
    }>;
  const roleOf = async (organisationId: number, viewer: Parameters<typeof call>[1], userId: number) =>
    (await membersOf(organisationId, viewer)).find((m) => m.userId === userId)?.role;

  describe('list', () => {
    test('any member lists users with their roles; a non-member gets 404', async () => {
      const team = await createTeam(t.app);
      for (const viewer of [team.owner, team.admin, team.manager, team.member]) {
        const members = await membersOf(team.organisationId, viewer);
        assert.deepEqual(
          members.map((m) => [m.userId, m.role]),
          [
            [team.owner.id, 'OWNER'],
            [team.admin.id, 'ADMIN'],
            [team.manager.id, 'MANAGER'],
            [team.member.id, 'MEMBER'],
          ],
        );
      }
      const [first, second] = await membersOf(team.organisationId, team.member);
      assert.deepEqual(Object.keys(first!).sort(), [
        'assignedById',
        'email',
        'joinedAt',
        'name',
        'role',
        'status',
        'updatedAt',
        'userId',
      ]);
      assert.equal((first as unknown as { status: string }).status, 'active');
      assert.equal(
        (first as unknown as { assignedById: null }).assignedById,
        null,
        'the creator was assigned by nobody',
      );
      assert.equal((second as unknown as { assignedById: number }).assignedById, team.owner.id);
      assert.equal((second as unknown as { email: string }).email, team.admin.email);
      expectStatus(
        await call(t.app, team.outsider, 'GET', `/api/organisations/${team.organisationId}/users/list`),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('invite (POST /users)', () => {
    test('OWNER and ADMIN invite a person as MEMBER; MANAGER and MEMBER get 403', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users`;
      const [a, b, c] = await Promise.all([registerUser(t.app), registerUser(t.app), registerUser(t.app)]);
      const invited = expectStatus(await call(t.app, team.owner, 'POST', url, { userId: a.id }), 201);
      assert.equal(invited.userId, a.id);
      assert.equal(invited.organisationId, team.organisationId);
      assert.equal(invited.role, 'MEMBER');
      assert.equal(invited.status, 'invited');
      expectStatus(await call(t.app, team.admin, 'POST', url, { userId: b.id }), 201);
      for (const user of [team.manager, team.member]) {
        expectStatus(await call(t.app, user, 'POST', url, { userId: c.id }), 403, 'FORBIDDEN');
      }
      assert.equal(await roleOf(team.organisationId, team.owner, c.id), undefined);
      // An invitation is no membership: the invited person reaches nothing until they accept.
      expectStatus(
        await call(t.app, a, 'GET', `/api/organisations/${team.organisationId}`),
        404,
        'NOT_FOUND',
      );
      await accept(t.app, a, team.organisationId);
      expectStatus(await call(t.app, a, 'GET', `/api/organisations/${team.organisationId}`), 200);
      const member = (await membersOf(team.organisationId, team.owner)).find((m) => m.userId === a.id);
      assert.equal((member as unknown as { assignedById: number }).assignedById, team.owner.id);
    });

    test('accepting makes it the active organisation of a user without one, and only then', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users`;
      const fresh = await registerUser(t.app);
      const busy = await registerUser(t.app);
      const busyOwn = await createOrganisation(t.app, busy);
      expectStatus(await call(t.app, team.owner, 'POST', url, { userId: fresh.id }), 201);
      expectStatus(await call(t.app, team.owner, 'POST', url, { userId: busy.id }), 201);
      assert.equal((await me(t.app, fresh)).activeOrganisationId, null, 'not before accepting');
      await accept(t.app, fresh, team.organisationId);
      await accept(t.app, busy, team.organisationId);
      assert.equal((await me(t.app, fresh)).activeOrganisationId, team.organisationId);
      assert.equal((await me(t.app, busy)).activeOrganisationId, busyOwn.id);
      const tenant = await t.app.services.organisations.requireTenant(personActor(fresh.id));
      assert.equal(tenant.organisationId, team.organisationId);
      assert.equal(tenant.role, 'MEMBER');
    });

    test('a member answers 409 ALREADY_MEMBER, an unknown user 201 like any other, a bad body 400', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users`;
      expectStatus(
        await call(t.app, team.owner, 'POST', url, { userId: team.manager.id }),
        409,
        'ALREADY_MEMBER',
      );
      assert.equal(
        await roleOf(team.organisationId, team.owner, team.manager.id),
        'MANAGER',
        'role untouched',
      );
      const unknown = expectStatus(await call(t.app, team.owner, 'POST', url, { userId: 999_999 }), 201);
      assert.equal(unknown.userId, 999_999);
      for (const body of [
        {},
        { userId: 'abc' },
        { userId: 0 },
        { userId: 2.5 },
        { userId: team.outsider.id, role: 'ADMIN' },
        { email: 'not an email' },
        { userId: team.outsider.id, email: 'both@example.test' },
      ]) {
        expectStatus(await call(t.app, team.owner, 'POST', url, body), 400, 'VALIDATION_FAILED');
      }
      assert.deepEqual(validationDetails(await call(t.app, team.owner, 'POST', url, {})), [
        'body: give exactly one of userId and email',
      ]);
    });

    test('two concurrent invitations of the same person: one 201, one 200 renewing it', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users`;
      const responses = await Promise.all([
        call(t.app, team.owner, 'POST', url, { userId: team.outsider.id }),
        call(t.app, team.admin, 'POST', url, { userId: team.outsider.id }),
      ]);
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 201]);
      assert.equal(responses[0]!.json().invitationId, responses[1]!.json().invitationId);
      const list = await membersOf(team.organisationId, team.owner);
      assert.equal(list.length, 5);
      assert.equal(list.filter((m) => m.userId === team.outsider.id).length, 1);
    });
  });

  describe('invite with a role (POST /users/assign)', () => {
    test('OWNER invites with any role; inviting again renews with the new role (200); a member is 409', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users/assign`;
      const newcomer = await registerUser(t.app);
      const invited = expectStatus(
        await call(t.app, team.owner, 'POST', url, { userId: newcomer.id, role: 'ADMIN' }),
        201,
      );
      assert.equal(invited.role, 'ADMIN');
      const renewed = expectStatus(
        await call(t.app, team.owner, 'POST', url, {
          userId: newcomer.id,
          role: 'OWNER',
          assignedById: team.owner.id,
        }),
        200,
      );
      assert.equal(renewed.role, 'OWNER');
      assert.equal(renewed.invitationId, invited.invitationId);
      assert.equal((await accept(t.app, newcomer, team.organisationId)).role, 'OWNER');
      expectStatus(
        await call(t.app, team.owner, 'POST', url, { userId: team.member.id, role: 'OWNER' }),
        409,
        'ALREADY_MEMBER',
      );
      expectStatus(
        await call(t.app, team.owner, 'POST', url, { userId: team.owner.id, role: 'ADMIN' }),
        409,
        'ALREADY_MEMBER',
      );
      assert.equal(await roleOf(team.organisationId, team.owner, team.member.id), 'MEMBER');
    });

    test('ADMIN invites only as MANAGER and MEMBER, and renews only such invitations', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users/assign`;
      const [x, y, z] = await Promise.all([registerUser(t.app), registerUser(t.app), registerUser(t.app)]);
      assert.equal(
        expectStatus(await call(t.app, team.admin, 'POST', url, { userId: x.id, role: 'MANAGER' }), 201).role,
        'MANAGER',
      );
      assert.equal(
        expectStatus(await call(t.app, team.admin, 'POST', url, { userId: x.id, role: 'MEMBER' }), 200).role,
        'MEMBER',
      );
      await invite(t.app, team.owner, team.organisationId, z, 'ADMIN');
      const refused: Array<[number, Role]> = [
        [y.id, 'ADMIN'],
        [y.id, 'OWNER'],
        [z.id, 'MEMBER'],
      ];
      for (const [userId, role] of refused) {
        expectStatus(await call(t.app, team.admin, 'POST', url, { userId, role }), 403, 'FORBIDDEN');
      }
      expectStatus(
        await call(t.app, team.admin, 'POST', url, { email: 'someone@example.test', role: 'ADMIN' }),
        403,
        'FORBIDDEN',
      );
      const invitations = (await membersOf(team.organisationId, team.owner)).filter(
        (m) => (m as unknown as { status: string }).status === 'invited',
      );
      assert.deepEqual(
        invitations.map((m) => [m.userId, m.role]),
        [
          [x.id, 'MEMBER'],
          [z.id, 'ADMIN'],
        ],
      );
      for (const user of [team.manager, team.member]) {
        expectStatus(
          await call(t.app, user, 'POST', url, { userId: y.id, role: 'MEMBER' }),
          403,
          'FORBIDDEN',
        );
      }
    });

    test('assignedById must be the caller; role must be an OrganisationRoleType', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users/assign`;
      assert.deepEqual(
        validationDetails(
          await call(t.app, team.owner, 'POST', url, {
            userId: team.outsider.id,
            role: 'MEMBER',
            assignedById: team.admin.id,
          }),
        ),
        ['body.assignedById: must be your own user id'],
      );
      const badRole = validationDetails(
        await call(t.app, team.owner, 'POST', url, { userId: team.outsider.id, role: 'owner' }),
      );
      assert.equal(badRole.length, 1);
      assert.match(badRole[0]!, /^body\.role: /);
      expectStatus(
        await call(t.app, team.owner, 'POST', url, { userId: team.outsider.id }),
        400,
        'VALIDATION_FAILED',
      );
      assert.equal(await roleOf(team.organisationId, team.owner, team.outsider.id), undefined);
    });
  });

  describe('change role (PATCH /users/:userId/role)', () => {
    test('OWNER changes any role; with two OWNERs one may step down, the last may not', async () => {
      const team = await createTeam(t.app);
      const role = (userId: number) => `/api/organisations/${team.organisationId}/users/${userId}/role`;
      assert.equal(
        expectStatus(await call(t.app, team.owner, 'PATCH', role(team.admin.id), { role: 'OWNER' }), 200)
          .role,
        'OWNER',
      );
      assert.equal(
        expectStatus(await call(t.app, team.owner, 'PATCH', role(team.owner.id), { role: 'MEMBER' }), 200)
          .role,
        'MEMBER',
      );
      // The former owner is now a MEMBER and has lost the rights of one.
      expectStatus(
        await call(t.app, team.owner, 'PATCH', role(team.member.id), { role: 'MANAGER' }),
        403,
        'FORBIDDEN',
      );
      const last = await call(t.app, team.admin, 'PATCH', role(team.admin.id), { role: 'ADMIN' });
      expectStatus(last, 409, 'LAST_OWNER');
      assert.equal(await roleOf(team.organisationId, team.admin, team.admin.id), 'OWNER');
      // The new OWNER now owns it for the plan: its own create is at the STORE limit.
      expectStatus(
        await call(t.app, team.admin, 'POST', '/api/organisations', { name: 'More' }),
        403,
        'PLAN_LIMIT_REACHED',
      );
    });

    test('making a member OWNER counts against their plan: at its limit 403 PLAN_LIMIT_REACHED', async () => {
      const team = await createTeam(t.app);
      await createOrganisation(t.app, team.member, { name: 'Own' });
      const refused = await call(
        t.app,
        team.owner,
        'PATCH',
        `/api/organisations/${team.organisationId}/users/${team.member.id}/role`,
        { role: 'OWNER' },
      );
      expectStatus(refused, 403, 'PLAN_LIMIT_REACHED');
      assert.match(
        refused.json().error.message,
        /^The member's plan STORE allows 1 owned active organisation/,
      );
      assert.equal(await roleOf(team.organisationId, team.owner, team.member.id), 'MEMBER');
    });

    test('ADMIN changes MANAGER and MEMBER between those roles only; MANAGER and MEMBER cannot change roles', async () => {
      const team = await createTeam(t.app);
      const role = (userId: number) => `/api/organisations/${team.organisationId}/users/${userId}/role`;
      assert.equal(
        expectStatus(await call(t.app, team.admin, 'PATCH', role(team.member.id), { role: 'MANAGER' }), 200)
          .role,
        'MANAGER',
      );
      assert.equal(
        expectStatus(await call(t.app, team.admin, 'PATCH', role(team.manager.id), { role: 'MEMBER' }), 200)
          .role,
        'MEMBER',
      );
      const refused: Array<[number, Role]> = [
        [team.manager.id, 'ADMIN'],
        [team.member.id, 'OWNER'],
        [team.owner.id, 'MEMBER'],
        [team.admin.id, 'MEMBER'],
      ];
      for (const [userId, newRole] of refused) {
        expectStatus(
          await call(t.app, team.admin, 'PATCH', role(userId), { role: newRole }),
          403,
          'FORBIDDEN',
        );
      }
      for (const user of [team.manager, team.member]) {
        expectStatus(
          await call(t.app, user, 'PATCH', role(team.admin.id), { role: 'MEMBER' }),
          403,
          'FORBIDDEN',
        );
      }
      assert.equal(await roleOf(team.organisationId, team.owner, team.admin.id), 'ADMIN');
      assert.equal(await roleOf(team.organisationId, team.owner, team.owner.id), 'OWNER');
    });

    test('a user who is not a member answers 404; a bad role 400', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/users/${team.outsider.id}/role`;
      const missing = await call(t.app, team.owner, 'PATCH', url, { role: 'MEMBER' });
      expectStatus(missing, 404, 'NOT_FOUND');
      assert.equal(missing.json().error.message, 'Member not found');
      expectStatus(
        await call(
          t.app,
          team.owner,
          'PATCH',
          `/api/organisations/${team.organisationId}/users/${team.member.id}/role`,
          {
            role: 'SUPERUSER',
          },
        ),
        400,
        'VALIDATION_FAILED',
      );
      expectStatus(
        await call(t.app, team.owner, 'PATCH', `/api/organisations/${team.organisationId}/users/abc/role`, {
          role: 'MEMBER',
        }),
        400,
        'VALIDATION_FAILED',
      );
    });

    test('two OWNERs demoting each other at once: exactly one succeeds, one OWNER remains', async () => {
      const team = await createTeam(t.app);
      await addWithRole(t.app, team.owner, team.organisationId, team.outsider, 'OWNER');
      const role = (userId: number) => `/api/organisations/${team.organisationId}/users/${userId}/role`;
      const responses = await Promise.all([
        call(t.app, team.owner, 'PATCH', role(team.outsider.id), { role: 'MEMBER' }),
        call(t.app, team.outsider, 'PATCH', role(team.owner.id), { role: 'MEMBER' }),
      ]);
      const statuses = responses.map((r) => r.statusCode).sort();
      // Whoever goes second is either the last OWNER (409) or no longer an OWNER at all (403).
      assert.equal(statuses[0], 200, JSON.stringify(responses.map((r) => r.json())));
      assert.ok(statuses[1] === 403 || statuses[1] === 409, `second answered ${statuses[1]}`);
      const owners = (await membersOf(team.organisationId, team.admin)).filter((m) => m.role === 'OWNER');
      assert.equal(owners.length, 1);
    });
  });

  describe('remove (DELETE /users/:userId and /users/:userId/remove)', () => {
    for (const suffix of ['', '/remove']) {
      test(`OWNER removes a member${suffix ? ' (alternate path)' : ''}: gone from the list, active organisation cleared`, async () => {
        const team = await createTeam(t.app);
        assert.equal((await me(t.app, team.member)).activeOrganisationId, team.organisationId);
        const response = await call(
          t.app,
          team.owner,
          'DELETE',
          `/api/organisations/${team.organisationId}/users/${team.member.id}${suffix}`,
        );
        assert.equal(response.statusCode, 204);
        assert.equal(response.body, '');
        assert.equal(await roleOf(team.organisationId, team.owner, team.member.id), undefined);
        assert.equal((await me(t.app, team.member)).activeOrganisationId, null);
        expectStatus(
          await call(t.app, team.member, 'GET', `/api/organisations/${team.organisationId}`),
          404,
          'NOT_FOUND',
        );
        assert.deepEqual(expectStatus(await call(t.app, team.member, 'GET', '/api/organisations'), 200), []);
        await assert.rejects(
          t.app.services.organisations.requireTenant(personActor(team.member.id)),
          (error: DomainError) => error.code === 'NO_ACTIVE_ORGANISATION',
        );
      });
    }

    test('removal leaves a different active organisation alone', async () => {
      const team = await createTeam(t.app);
      const own = await createOrganisation(t.app, team.outsider);
      await addWithRole(t.app, team.owner, team.organisationId, team.outsider, 'MEMBER');
      assert.equal((await me(t.app, team.outsider)).activeOrganisationId, own.id);
      expectStatus(
        await call(
          t.app,
          team.owner,
          'DELETE',
          `/api/organisations/${team.organisationId}/users/${team.outsider.id}`,
        ),
        204,
      );
      assert.equal((await me(t.app, team.outsider)).activeOrganisationId, own.id);
    });

    test('ADMIN removes MANAGER and MEMBER but not ADMIN or OWNER; MANAGER and MEMBER remove nobody else', async () => {
      const team = await createTeam(t.app);
      const otherAdmin = await registerUser(t.app);
      await addWithRole(t.app, team.owner, team.organisationId, otherAdmin, 'ADMIN');
      const remove = (actor: typeof team.owner, userId: number) =>
        call(t.app, actor, 'DELETE', `/api/organisations/${team.organisationId}/users/${userId}`);
      for (const user of [team.manager, team.member]) {
        expectStatus(await remove(user, team.admin.id), 403, 'FORBIDDEN');
      }
      expectStatus(await remove(team.member, team.manager.id), 403, 'FORBIDDEN');
      expectStatus(await remove(team.manager, team.member.id), 403, 'FORBIDDEN');
      expectStatus(await remove(team.admin, otherAdmin.id), 403, 'FORBIDDEN');
      expectStatus(await remove(team.admin, team.owner.id), 403, 'FORBIDDEN');
      assert.equal((await membersOf(team.organisationId, team.owner)).length, 5);
      assert.equal((await remove(team.admin, team.manager.id)).statusCode, 204);
      assert.equal((await remove(team.admin, team.member.id)).statusCode, 204);
      assert.equal((await remove(team.owner, otherAdmin.id)).statusCode, 204);
      assert.deepEqual(
        (await membersOf(team.organisationId, team.owner)).map((m) => m.role),
        ['OWNER', 'ADMIN'],
      );
    });

    test('every member may leave; the last OWNER may not', async () => {
      const team = await createTeam(t.app);
      const leave = (user: typeof team.owner) =>
        call(t.app, user, 'DELETE', `/api/organisations/${team.organisationId}/users/${user.id}/remove`);
      for (const user of [team.member, team.manager, team.admin]) {
        assert.equal((await leave(user)).statusCode, 204);
        assert.equal((await me(t.app, user)).activeOrganisationId, null);
      }
      expectStatus(await leave(team.owner), 409, 'LAST_OWNER');
      // With a second OWNER the first may go, and the second becomes the last.
      await addWithRole(t.app, team.owner, team.organisationId, team.outsider, 'OWNER');
      assert.equal((await leave(team.owner)).statusCode, 204);
      expectStatus(
        await call(
          t.app,
          team.outsider,
          'DELETE',
          `/api/organisations/${team.organisationId}/users/${team.outsider.id}`,
        ),
        409,
        'LAST_OWNER',
      );
      assert.deepEqual(
        (await membersOf(team.organisationId, team.outsider)).map((m) => [m.userId, m.role]),
        [[team.outsider.id, 'OWNER']],
      );
    });

    test('removing someone who is not a member answers 404; a non-member caller 404', async () => {
      const team = await createTeam(t.app);
      const stranger = await registerUser(t.app);
      const missing = await call(
        t.app,
        team.owner,
        'DELETE',
        `/api/organisations/${team.organisationId}/users/${stranger.id}`,
      );
      expectStatus(missing, 404, 'NOT_FOUND');
      assert.equal(missing.json().error.message, 'Member not found');
      expectStatus(
        await call(
          t.app,
          team.outsider,
          'DELETE',
          `/api/organisations/${team.organisationId}/users/${team.member.id}`,
        ),
        404,
        'NOT_FOUND',
      );
      assert.equal(await roleOf(team.organisationId, team.owner, team.member.id), 'MEMBER');
    });
  });
});
