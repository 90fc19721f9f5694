// An organisation's catalogue: its resource types and resources, made through the API.
import type { FastifyInstance } from 'fastify';
import type { SignedInUser } from './app.js';
import { type Answer, client, expectStatus, type RequestBody } from './http.js';

/** Creates a resource type (named Room unless the body names it) in the user's active organisation. */
export async function createType(
  app: FastifyInstance,
  user: SignedInUser,
  body: Partial<RequestBody<'POST', '/api/resource-types'>> = {},
): Promise<Answer<'POST', '/api/resource-types', 201>> {
  const response = await client(app, user).send('POST', '/api/resource-types', {
    body: { name: 'Room', ...body },
  });
  return expectStatus(response, 201);
}

/** Creates a resource in the user's active organisation. */
export async function createResource(
  app: FastifyInstance,
  user: SignedInUser,
  body: RequestBody<'POST', '/api/resources'>,
): Promise<Answer<'POST', '/api/resources', 201>> {
  return expectStatus(await client(app, user).send('POST', '/api/resources', { body }), 201);
}

/**
 * A round-robin type of half-hour bookings (booked by its pool unless `bookingMode` says
 * otherwise) with a resource of each of `names`: its id and the resources' ids, in order.
 */
export async function roundRobinTeam(
  app: FastifyInstance,
  user: SignedInUser,
  names: string[],
  bookingMode: 'POOL' | 'BOTH' = 'POOL',
): Promise<{ typeId: number; ids: number[] }> {
  const type = await createType(app, user, {
    bookingMode,
    minBookingDuration: 30,
    assignment: 'round_robin',
  });
  const ids: number[] = [];
  for (const name of names) ids.push((await createResource(app, user, { name, resourceTypeId: type.id })).id);
  return { typeId: type.id, ids };
}
