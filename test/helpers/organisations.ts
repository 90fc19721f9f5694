// Organisations and their people: an owner with an organisation, members by role, a whole team;
// and an organisation's payment account.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { registerUser, type SignedInUser } from './app.js';
import { type Answer, as, client, expectStatus, type RequestBody } from './http.js';

export type Role = 'OWNER' | 'ADMIN' | 'MANAGER' | 'MEMBER';

/** What a new organisation may be created with: a name is given unless the test names one. */
export type OrganisationFields = Partial<RequestBody<'POST', '/api/organisations'>>;

/** Creates an organisation owned (and made active) by `owner`; answers it. */
export async function createOrganisation(
  app: FastifyInstance,
  owner: SignedInUser,
  body: OrganisationFields = {},
): Promise<Answer<'POST', '/api/organisations', 201>> {
  const response = await client(app, owner).send('POST', '/api/organisations', {
    body: { name: 'Organisation', ...body },
  });
  return expectStatus(response, 201);
}

export interface OrgOwner extends SignedInUser {
  organisationId: number;
}

/** Registers a user and creates an organisation they own (and have active). */
export async function ownerWithOrganisation(
  app: FastifyInstance,
  organisation: OrganisationFields = {},
): Promise<OrgOwner> {
  const user = await registerUser(app, 'Owner');
  const { id } = await createOrganisation(app, user, { name: 'Acme', ...organisation });
  return { ...user, organisationId: id };
}

export async function me(
  app: FastifyInstance,
  user: SignedInUser,
): Promise<Answer<'GET', '/api/auth/me', 200>> {
  return expectStatus(await client(app, user).send('GET', '/api/auth/me'), 200);
}

/** Invites `user` to the organisation with `role`, as `inviter`; answers the invitation. */
export async function invite(
  app: FastifyInstance,
  inviter: SignedInUser,
  organisationId: number,
  user: SignedInUser,
  role: Role,
) {
  const response = await client(app, inviter).request(
    'POST',
    `/api/organisations/${organisationId}/users/assign`,
    { userId: user.id, role },
  );
  return expectStatus(response, 201);
}

/** `user` accepts their invitation to the organisation; answers their organisation list entry. */
export async function accept(
  app: FastifyInstance,
  user: SignedInUser,
  organisationId: number,
): Promise<Answer<'POST', '/api/organisations/{id}/invitation/accept', 200>> {
  const response = await client(app, user).send('POST', '/api/organisations/{id}/invitation/accept', {
    params: { id: organisationId },
  });
  return expectStatus(response, 200);
}

/** Adds `user` to the organisation with `role`: its owner invites them and they accept. */
export async function addWithRole(
  app: FastifyInstance,
  owner: SignedInUser,
  organisationId: number,
  user: SignedInUser,
  role: Role,
) {
  await invite(app, owner, organisationId, user, role);
  await accept(app, user, organisationId);
}

/** A new user (named for the role) the owner adds with `role`; the organisation becomes their active one. */
export async function memberWithRole(
  app: FastifyInstance,
  owner: OrgOwner,
  role: Role,
): Promise<SignedInUser> {
  const user = await registerUser(app, role);
  await addWithRole(app, owner, owner.organisationId, user, role);
  return user;
}

export interface Team {
  organisationId: number;
  owner: SignedInUser;
  admin: SignedInUser;
  manager: SignedInUser;
  member: SignedInUser;
  outsider: SignedInUser;
}

/** An organisation with one member of each role, and a user who belongs to none. */
export async function createTeam(app: FastifyInstance, body: OrganisationFields = {}): Promise<Team> {
  const [owner, admin, manager, member, outsider] = await Promise.all([
    registerUser(app, 'Owner'),
    registerUser(app, 'Admin'),
    registerUser(app, 'Manager'),
    registerUser(app, 'Member'),
    registerUser(app, 'Outsider'),
  ]);
  const { id: organisationId } = await createOrganisation(app, owner, { name: 'Team', ...body });
  await addWithRole(app, owner, organisationId, admin, 'ADMIN');
  await addWithRole(app, owner, organisationId, manager, 'MANAGER');
  await addWithRole(app, owner, organisationId, member, 'MEMBER');
  return { organisationId, owner, admin, manager, member, outsider };
}

/**
 * Onboards the organisation's account at the payment provider (a real visit of the link, which
 * an app pointed at the payment emulator gives) and reads it back; answers the link and the status.
 */
export async function connectPayments(app: FastifyInstance, owner: OrgOwner) {
  const api = client(app, owner);
  const base = `/api/organisations/${owner.organisationId}/payment`;
  const link: Answer<'POST', '/api/organisations/{id}/payment/onboarding-link', 200> = expectStatus(
    await api.post(`${base}/onboarding-link`),
    200,
  );
  assert.equal((await fetch(link.url, { redirect: 'manual' })).status, 302);
  const status: Answer<'GET', '/api/organisations/{id}/payment/status', 200> = expectStatus(
    await api.get(`${base}/status`),
    200,
  );
  return { link, status };
}

/**
 * `user` signing in with an API key of their own: a login token lives 15 minutes, a key carries
 * them across a fake clock moved days on.
 */
export async function withApiKey<U extends SignedInUser>(app: FastifyInstance, user: U): Promise<U> {
  const { key } = expectStatus(await as(app, user).post('/api/auth/api-keys', { label: 'clock' }), 201);
  return { ...user, auth: { authorization: `ApiKey ${key}` } };
}
