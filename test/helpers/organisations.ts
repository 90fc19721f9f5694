import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { registerUser, type SignedInUser } from './app.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One authenticated call through app.inject. */
export function call(
  app: FastifyInstance,
  user: SignedInUser | null,
  method: Method,
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  const options: InjectOptions = { method, url, headers: user ? user.auth : {} };
  if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
  return app.inject(options);
}

/** Asserts the status and, for errors, the envelope's code; answers the JSON body. */
export function expectStatus(response: LightMyRequestResponse, status: number, code?: string) {
  assert.equal(
    response.statusCode,
    status,
    `expected ${status}, got ${response.statusCode}: ${response.body}`,
  );
  if (code) {
    const body = response.json();
    assert.equal(body.success, false);
    assert.equal(body.error.code, code);
    assert.equal(typeof body.error.requestId, 'string');
  }
  return response.body ? response.json() : null;
}

/** The `{path, message}` details of a 400, as `path: message` strings. */
export function validationDetails(response: LightMyRequestResponse): string[] {
  const body = expectStatus(response, 400, 'VALIDATION_FAILED');
  return body.error.details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`);
}

export async function createOrganisation(
  app: FastifyInstance,
  owner: SignedInUser,
  body: Record<string, unknown> = {},
): Promise<{ id: number } & Record<string, unknown>> {
  const response = await call(app, owner, 'POST', '/api/organisations', { name: 'Organisation', ...body });
  return expectStatus(response, 201);
}

export async function me(app: FastifyInstance, user: SignedInUser) {
  return expectStatus(await call(app, user, 'GET', '/api/auth/me'), 200);
}

export type Role = 'OWNER' | 'ADMIN' | 'MANAGER' | 'MEMBER';

/** Invites `user` to the organisation with `role`, as `inviter`; answers the invitation. */
export async function invite(
  app: FastifyInstance,
  inviter: SignedInUser,
  organisationId: number,
  user: SignedInUser,
  role: Role,
) {
  const response = await call(app, inviter, 'POST', `/api/organisations/${organisationId}/users/assign`, {
    userId: user.id,
    role,
  });
  return expectStatus(response, 201);
}

/** `user` accepts their invitation to the organisation; answers their organisation list entry. */
export async function accept(app: FastifyInstance, user: SignedInUser, organisationId: number) {
  const response = await call(app, user, 'POST', `/api/organisations/${organisationId}/invitation/accept`);
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

export interface Team {
  organisationId: number;
  owner: SignedInUser;
  admin: SignedInUser;
  manager: SignedInUser;
  member: SignedInUser;
  outsider: SignedInUser;
}

/** An organisation with one member of each role, and a user who belongs to none. */
export async function createTeam(app: FastifyInstance, body: Record<string, unknown> = {}): Promise<Team> {
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
