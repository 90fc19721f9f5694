import type { FastifyInstance } from 'fastify';
import { registerUser, type SignedInUser } from './app.js';

export interface OrgOwner extends SignedInUser {
  organisationId: number;
}

/** Registers a user and creates an organisation they own (and have active). */
export async function ownerWithOrganisation(
  app: FastifyInstance,
  organisation: Record<string, unknown> = {},
): Promise<OrgOwner> {
  const user = await registerUser(app, 'Owner');
  const response = await app.inject({
    method: 'POST',
    url: '/api/organisations',
    headers: user.auth,
    payload: { name: 'Acme', ...organisation },
  });
  if (response.statusCode !== 201)
    throw new Error(`create organisation: ${response.statusCode} ${response.body}`);
  return { ...user, organisationId: response.json().id };
}

/** A new user the owner invites with `role` and who accepts; the organisation becomes their active one. */
export async function memberWithRole(
  app: FastifyInstance,
  owner: OrgOwner,
  role: string,
): Promise<SignedInUser> {
  const user = await registerUser(app, role);
  const response = await app.inject({
    method: 'POST',
    url: `/api/organisations/${owner.organisationId}/users/assign`,
    headers: owner.auth,
    payload: { userId: user.id, role },
  });
  if (response.statusCode >= 300) throw new Error(`invite member: ${response.statusCode} ${response.body}`);
  const accepted = await app.inject({
    method: 'POST',
    url: `/api/organisations/${owner.organisationId}/invitation/accept`,
    headers: user.auth,
  });
  if (accepted.statusCode !== 200) throw new Error(`accept: ${accepted.statusCode} ${accepted.body}`);
  return user;
}

export async function createType(
  app: FastifyInstance,
  user: SignedInUser,
  body: Record<string, unknown> = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/resource-types',
    headers: user.auth,
    payload: { name: 'Room', ...body },
  });
  if (response.statusCode !== 201) throw new Error(`create type: ${response.statusCode} ${response.body}`);
  return response.json() as { id: number } & Record<string, unknown>;
}

export async function createResource(
  app: FastifyInstance,
  user: SignedInUser,
  body: Record<string, unknown>,
) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/resources',
    headers: user.auth,
    payload: body,
  });
  if (response.statusCode !== 201)
    throw new Error(`create resource: ${response.statusCode} ${response.body}`);
  return response.json() as { id: number } & Record<string, unknown>;
}

export const customer = { name: 'Grace Hopper', email: 'grace@example.test' };

/** Monday 00:00 UTC of the week after next: a future date every test can book in. */
export function futureMonday(): Date {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  d.setUTCDate(d.getUTCDate() + ((8 - d.getUTCDay()) % 7) + 7);
  return d;
}

export const at = (base: Date, hours: number, minutes = 0) =>
  new Date(base.getTime() + (hours * 60 + minutes) * 60_000).toISOString();
