// A user's calendars and events, made through the API.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { SignedInUser } from './app.js';
import { type Answer, client, expectStatus, type RequestBody } from './http.js';

/** Creates a calendar of the user's (named Work unless the body names it); answers it. */
export async function createCalendar(
  app: FastifyInstance,
  user: SignedInUser,
  body: Partial<RequestBody<'POST', '/api/calendars'>> = {},
): Promise<Answer<'POST', '/api/calendars', 201>> {
  const response = await client(app, user).send('POST', '/api/calendars', {
    body: { name: 'Work', ...body },
  });
  return expectStatus(response, 201);
}

export async function defaultCalendarId(app: FastifyInstance, user: SignedInUser): Promise<number> {
  const list: Answer<'GET', '/api/calendars', 200> = expectStatus(
    await client(app, user).send('GET', '/api/calendars'),
    200,
  );
  const found = list.find((c) => c.isDefault && c.ownerId === user.id);
  assert.ok(found, 'the user has a default calendar');
  return found.id;
}

export async function createEvent(
  app: FastifyInstance,
  user: SignedInUser,
  calendarId: number,
  body: Record<string, unknown> = {},
): Promise<{ id: number; calendarId: number }> {
  return expectStatus(
    await client(app, user).post(`/api/calendars/${calendarId}/events`, {
      title: 'Meeting',
      startTime: '2025-06-02T09:00:00Z',
      endTime: '2025-06-02T10:00:00Z',
      ...body,
    }),
    201,
  );
}

export function rangeQuery(from: string, to: string): string {
  return `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
}
