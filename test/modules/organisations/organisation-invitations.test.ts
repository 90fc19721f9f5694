import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import {
  createTestApp,
  registerUser,
  type SignedInUser,
  type TestApp,
  verifyEmail,
} from '../../helpers/app.js';
import { call, expectStatus, ok } from '../../helpers/http.js';
import {
  accept,
  createOrganisation,
  createTeam,
  invite,
  me,
  withApiKey,
} from '../../helpers/organisations.js';
import { PRIVACY, parseExport } from '../../helpers/privacy.js';

const DAY = 24 * 60 * 60 * 1000;
/** The keys of an invitation as the organisation sees it: nothing about the person. */
const INVITATION_KEYS = [
  'expiresAt',
  'invitationId',
  'invitedAt',
  'organisationId',
  'role',
  'status',
  'userId',
];

/**
 * Membership needs the invited person's consent (DECISIONS.md "Membership by
 * invitation"): an invitation tells the organisation nothing about the person, and
 * changes nothing for them until they accept it.
 */
describe('membership by invitation', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const users = (id: number) => `/api/organisations/${id}/users`;
  const received = async (user: SignedInUser) =>
    expectStatus(await call(t.app, user, 'GET', '/api/organisations/invitations'), 200) as Array<
      Record<string, unknown>
    >;
  const listOf = async (organisationId: number, viewer: SignedInUser) =>
    expectStatus(
      await call(t.app, viewer, 'GET', `/api/organisations/${organisationId}/users/list`),
      200,
    ) as Array<Record<string, unknown>>;
  const acceptCall = (user: SignedInUser, organisationId: number) =>
    call(t.app, user, 'POST', `/api/organisations/${organisationId}/invitation/accept`);

  test('looping POST /users over ids and emails learns nothing about accounts', async () => {
    const attacker = await registerUser(t.app, 'Attacker');
    const { id } = await createOrganisation(t.app, attacker);
    const victims = await Promise.all(
      ['Victim One', 'Victim Two'].map(async (name) => ({ ...(await registerUser(t.app, name)), name })),
    );
    const absentIds = [victims[1]!.id + 1000, victims[1]!.id + 1001];
    const answers = [];
    for (const userId of [victims[0]!.id, absentIds[0]!, victims[1]!.id, absentIds[1]!]) {
      answers.push(await call(t.app, attacker, 'POST', users(id), { userId }));
    }
    for (const email of [victims[0]!.email, 'nobody-at-all@example.test']) {
      answers.push(await call(t.app, attacker, 'POST', users(id), { email }));
    }
    answers.push(
      await call(t.app, attacker, 'POST', `${users(id)}/assign`, {
        userId: victims[1]!.id + 2000,
        role: 'OWNER',
      }),
    );
    // Every answer is a 201 of the same shape, whether an account exists or not.
    const shapes = new Set<string>();
    for (const answer of answers) {
      const body = expectStatus(answer, 201);
      assert.deepEqual(Object.keys(body).sort(), INVITATION_KEYS);
      assert.equal(body.status, 'invited');
      const { invitationId: _, userId: __, invitedAt: ___, expiresAt: ____, role: _____, ...rest } = body;
      shapes.add(JSON.stringify(rest));
    }
    assert.equal(shapes.size, 1, 'existing and absent accounts answer alike');
    // Neither the answers nor the member list name anyone who has not accepted.
    const list = await listOf(id, attacker);
    assert.equal(list.length, 1 + answers.length);
    for (const entry of list.slice(1)) assert.deepEqual(Object.keys(entry).sort(), INVITATION_KEYS);
    const seen = [...answers.map((a) => a.body), JSON.stringify(list)].join('\n');
    for (const victim of victims) {
      assert.doesNotMatch(seen, new RegExp(victim.email));
      assert.doesNotMatch(seen, new RegExp(victim.name));
    }
  });

  test('until acceptance nothing changes for the invited person: no access, no active organisation, no plan used', async () => {
    const attacker = await registerUser(t.app, 'Attacker');
    const [victim, emailed] = await Promise.all([
      registerUser(t.app, 'Victim'),
      registerUser(t.app, 'Emailed'),
    ]);
    const { id } = await createOrganisation(t.app, attacker);
    const untouched = async (person: SignedInUser) => {
      assert.equal((await me(t.app, person)).activeOrganisationId, null);
      assert.deepEqual(expectStatus(await call(t.app, person, 'GET', '/api/organisations'), 200), []);
      expectStatus(await call(t.app, person, 'GET', `/api/organisations/${id}`), 404, 'NOT_FOUND');
      expectStatus(await call(t.app, person, 'GET', '/api/resources'), 409, 'NO_ACTIVE_ORGANISATION');
      // The OWNER invitation uses none of their plan: their own organisation is created, and active.
      const own = await createOrganisation(t.app, person, { name: 'Mine' });
      assert.equal(own.isActiveOrganisation, true);
    };
    await invite(t.app, attacker, id, victim, 'OWNER');
    await untouched(victim);
    expectStatus(
      await call(t.app, attacker, 'POST', `${users(id)}/assign`, { email: emailed.email, role: 'OWNER' }),
      201,
    );
    await untouched(emailed);
    // The attacker's member list holds only the attacker as a member.
    const members = (await listOf(id, attacker)).filter((entry) => entry.status === 'active');
    assert.deepEqual(
      members.map((m) => m.userId),
      [attacker.id],
    );
  });

  test('accept: a member with the invited role, assigned by the inviter; active only when they had none', async () => {
    const team = await createTeam(t.app);
    const [fresh, busy] = await Promise.all([registerUser(t.app, 'Fresh'), registerUser(t.app, 'Busy')]);
    const busyOwn = await createOrganisation(t.app, busy);
    await invite(t.app, team.admin, team.organisationId, fresh, 'MANAGER');
    await invite(t.app, team.owner, team.organisationId, busy, 'ADMIN');

    const [offer] = await received(fresh);
    assert.deepEqual(Object.keys(offer!).sort(), [
      'expiresAt',
      'invitedAt',
      'invitedByName',
      'organisationId',
      'organisationName',
      'role',
    ]);
    assert.equal(offer!.organisationId, team.organisationId);
    assert.equal(offer!.organisationName, 'Team');
    assert.equal(offer!.role, 'MANAGER');
    assert.equal(offer!.invitedByName, 'Admin');
    assert.equal(Date.parse(offer!.expiresAt as string) - Date.parse(offer!.invitedAt as string), 14 * DAY);

    const joined = await accept(t.app, fresh, team.organisationId);
    assert.equal(joined.id, team.organisationId);
    assert.equal(joined.role, 'MANAGER');
    assert.equal(joined.isOwner, false);
    assert.equal(joined.isActiveOrganisation, true);
    assert.equal((await me(t.app, fresh)).activeOrganisationId, team.organisationId);
    const busyJoined = await accept(t.app, busy, team.organisationId);
    assert.equal(busyJoined.isActiveOrganisation, false);
    assert.equal((await me(t.app, busy)).activeOrganisationId, busyOwn.id);

    const list = await listOf(team.organisationId, team.member);
    const entry = list.find((m) => m.userId === fresh.id)!;
    assert.equal(entry.status, 'active');
    assert.equal(entry.role, 'MANAGER');
    assert.equal(entry.assignedById, team.admin.id);
    assert.ok(
      list.every((m) => m.status === 'active'),
      'the invitations are used up',
    );
    assert.deepEqual(await received(fresh), []);
    expectStatus(await acceptCall(fresh, team.organisationId), 404, 'NOT_FOUND');
  });

  test('decline: the invitation is gone for both sides and nothing else changes', async () => {
    const team = await createTeam(t.app);
    const invited = await registerUser(t.app);
    await invite(t.app, team.owner, team.organisationId, invited, 'MEMBER');
    const declined = await call(
      t.app,
      invited,
      'POST',
      `/api/organisations/${team.organisationId}/invitation/decline`,
    );
    assert.equal(declined.statusCode, 204);
    assert.equal(declined.body, '');
    assert.deepEqual(await received(invited), []);
    assert.equal((await listOf(team.organisationId, team.owner)).length, 4);
    expectStatus(await acceptCall(invited, team.organisationId), 404, 'NOT_FOUND');
    expectStatus(
      await call(t.app, invited, 'POST', `/api/organisations/${team.organisationId}/invitation/decline`),
      404,
      'NOT_FOUND',
    );
    assert.equal((await me(t.app, invited)).activeOrganisationId, null);
  });

  test('invitations last 14 days: accepting later answers 410 INVITE_EXPIRED; inviting again renews', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    try {
      const team = await createTeam(t.app);
      const owner = await withApiKey(t.app, team.owner);
      const [late, inTime] = await Promise.all([
        registerUser(t.app).then((user) => withApiKey(t.app, user)),
        registerUser(t.app).then((user) => withApiKey(t.app, user)),
      ]);
      const first = await invite(t.app, owner, team.organisationId, late, 'MEMBER');
      assert.equal(Date.parse(first.expiresAt), start + 14 * DAY);
      await invite(t.app, owner, team.organisationId, inTime, 'MEMBER');

      mock.timers.setTime(start + 14 * DAY - 1000);
      await accept(t.app, inTime, team.organisationId);

      mock.timers.setTime(start + 14 * DAY + 1000);
      assert.deepEqual(await received(late), [], 'an expired invitation is no longer offered');
      expectStatus(await acceptCall(late, team.organisationId), 410, 'INVITE_EXPIRED');
      assert.equal((await me(t.app, late)).activeOrganisationId, null);
      // The organisation still sees the lapsed invitation, and renews it with a new role.
      const lapsed = (await listOf(team.organisationId, owner)).find((m) => m.userId === late.id)!;
      assert.equal(lapsed.status, 'invited');
      const renewed = expectStatus(
        await call(t.app, owner, 'POST', `${users(team.organisationId)}/assign`, {
          userId: late.id,
          role: 'MANAGER',
        }),
        200,
      );
      assert.equal(renewed.invitationId, first.invitationId);
      assert.equal(renewed.role, 'MANAGER');
      assert.equal(Date.parse(renewed.expiresAt), start + 28 * DAY + 1000);
      mock.timers.setTime(start + 27 * DAY);
      assert.equal((await accept(t.app, late, team.organisationId)).role, 'MANAGER');
    } finally {
      mock.timers.reset();
    }
  });

  test('withdraw: DELETE /users/:userId and DELETE /invitations/:invitationId, under the role matrix', async () => {
    const team = await createTeam(t.app);
    const [byId, byEmail, asAdmin] = await Promise.all([
      registerUser(t.app),
      registerUser(t.app),
      registerUser(t.app),
    ]);
    const url = users(team.organisationId);
    await invite(t.app, team.owner, team.organisationId, byId, 'MEMBER');
    const emailed = expectStatus(await call(t.app, team.owner, 'POST', url, { email: byEmail.email }), 201);
    await invite(t.app, team.owner, team.organisationId, asAdmin, 'ADMIN');

    // MANAGER and MEMBER withdraw nothing; an ADMIN not an ADMIN's invitation.
    for (const user of [team.manager, team.member]) {
      expectStatus(await call(t.app, user, 'DELETE', `${url}/${byId.id}`), 403, 'FORBIDDEN');
    }
    expectStatus(await call(t.app, team.admin, 'DELETE', `${url}/${asAdmin.id}`), 403, 'FORBIDDEN');

    assert.equal((await call(t.app, team.admin, 'DELETE', `${url}/${byId.id}`)).statusCode, 204);
    const withdraw = (id: number) =>
      call(t.app, team.owner, 'DELETE', `/api/organisations/${team.organisationId}/invitations/${id}`);
    assert.equal((await withdraw(emailed.invitationId)).statusCode, 204);
    expectStatus(await withdraw(emailed.invitationId), 404, 'NOT_FOUND');
    for (const user of [byId, byEmail]) {
      assert.deepEqual(await received(user), []);
      expectStatus(await acceptCall(user, team.organisationId), 404, 'NOT_FOUND');
    }
    assert.deepEqual(
      (await listOf(team.organisationId, team.owner))
        .filter((m) => m.status === 'invited')
        .map((m) => m.userId),
      [asAdmin.id],
    );
    // Another organisation's invitation is not reachable through this one.
    const other = await createOrganisation(t.app, team.outsider);
    const foreign = await invite(t.app, team.outsider, other.id, byId, 'MEMBER');
    expectStatus(await withdraw(foreign.invitationId), 404, 'NOT_FOUND');
  });

  test('invitation by email: the person with that email sees and accepts it; nobody else can', async () => {
    const team = await createTeam(t.app);
    const invited = await registerUser(t.app, 'Emailed');
    const stranger = await registerUser(t.app);
    const answer = expectStatus(
      await call(t.app, team.owner, 'POST', `${users(team.organisationId)}/assign`, {
        email: invited.email.toUpperCase(),
        role: 'ADMIN',
      }),
      201,
    );
    assert.equal(answer.userId, null);
    assert.equal(answer.role, 'ADMIN');
    const listed = (await listOf(team.organisationId, team.member)).find((m) => m.status === 'invited')!;
    assert.deepEqual(Object.keys(listed).sort(), INVITATION_KEYS);
    assert.equal(listed.userId, null);

    assert.deepEqual(await received(stranger), []);
    expectStatus(await acceptCall(stranger, team.organisationId), 404, 'NOT_FOUND');
    // Until the address is proved theirs, the invitation is neither listed nor accepted.
    assert.deepEqual(await received(invited), []);
    expectStatus(await acceptCall(invited, team.organisationId), 403, 'EMAIL_NOT_VERIFIED');
    await verifyEmail(t.app, invited);
    const [offer] = await received(invited);
    assert.equal(offer!.organisationId, team.organisationId);
    assert.equal(offer!.role, 'ADMIN');
    assert.equal(offer!.invitedByName, 'Owner');
    assert.equal((await accept(t.app, invited, team.organisationId)).role, 'ADMIN');
    const member = (await listOf(team.organisationId, team.owner)).find((m) => m.userId === invited.id)!;
    assert.equal(member.status, 'active');
    assert.equal(member.email, invited.email);
    // A member by that email now: inviting them again is 409 ALREADY_MEMBER, by email or by id.
    expectStatus(
      await call(t.app, team.owner, 'POST', users(team.organisationId), { email: invited.email }),
      409,
      'ALREADY_MEMBER',
    );
    expectStatus(
      await call(t.app, team.owner, 'POST', users(team.organisationId), { userId: invited.id }),
      409,
      'ALREADY_MEMBER',
    );
  });

  test('accepting an OWNER invitation at the plan limit answers 403 PLAN_LIMIT_REACHED; the invitation stays', async () => {
    const team = await createTeam(t.app);
    const invited = await registerUser(t.app);
    const own = await createOrganisation(t.app, invited);
    await invite(t.app, team.owner, team.organisationId, invited, 'OWNER');
    const refused = await acceptCall(invited, team.organisationId);
    expectStatus(refused, 403, 'PLAN_LIMIT_REACHED');
    assert.match(refused.json().error.message, /STORE allows 1 owned active organisation/);
    assert.equal((await listOf(team.organisationId, team.owner)).length, 5, 'still an invitation only');
    assert.equal((await received(invited)).length, 1);
    // Archiving their own organisation frees the place.
    expectStatus(await call(t.app, invited, 'DELETE', `/api/organisations/${own.id}`), 200);
    const joined = await accept(t.app, invited, team.organisationId);
    assert.equal(joined.isOwner, true);
    assert.equal(joined.isActiveOrganisation, true);
  });

  test('privacy: the export holds invitations to the person and those they sent; erasure removes them', async () => {
    const inviter = { ...(await registerUser(t.app, 'Inviter')), name: 'Inviter' };
    const person = await registerUser(t.app, 'Invited Person');
    const { id } = await createOrganisation(t.app, inviter, { name: 'Inviting Org' });
    await invite(t.app, inviter, id, person, 'MANAGER');
    expectStatus(await call(t.app, inviter, 'POST', users(id), { email: person.email }), 201);
    expectStatus(await call(t.app, inviter, 'POST', users(id), { email: 'someone-else@example.test' }), 201);

    const exportOf = async (user: SignedInUser) =>
      parseExport(await t.app.inject({ method: 'GET', url: `${PRIVACY}/export`, headers: user.auth })).data;
    const mine = await exportOf(person);
    assert.equal(mine.organisationInvitations.length, 2);
    assert.ok(
      mine.organisationInvitations.every(
        (i: { organisationName: string }) => i.organisationName === 'Inviting Org',
      ),
    );
    assert.deepEqual(
      mine.organisationInvitations.map((i: { email: string | null }) => i.email),
      [null, person.email],
    );
    const sent = (await exportOf(inviter)).organisationInvitationsYouSent;
    assert.equal(sent.length, 3);
    assert.doesNotMatch(JSON.stringify(sent), /someone-else|Invited Person/);
    assert.ok(sent.every((i: Record<string, unknown>) => !('userId' in i) && !('email' in i)));

    const request = await ok(t.app, person, 'POST', `${PRIVACY}/requests`, {
      requestType: 'delete',
      confirmEmail: person.email,
    });
    await t.app.services.privacy.operator.process(request.id);
    await t.app.jobs.idle();
    const left = (await listOf(id, inviter)).filter((m) => m.status === 'invited');
    assert.deepEqual(
      left.map((m) => m.userId),
      [null],
      'only the invitation of someone else remains',
    );
  });
});
