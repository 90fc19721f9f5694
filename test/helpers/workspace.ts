import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AccessScope, type Actor, agentActor } from '../../src/lib/actor.js';
import type { SignedInUser } from './app.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** HTTP calls as one signed-in user. */
export function as(app: FastifyInstance, user: SignedInUser) {
  const call = (method: Method, url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    app.inject({
      method,
      url,
      headers: user.auth,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  return {
    get: (url: string) => call('GET', url),
    post: (url: string, payload?: unknown) => call('POST', url, payload ?? {}),
    patch: (url: string, payload: unknown) => call('PATCH', url, payload),
    delete: (url: string) => call('DELETE', url),
  };
}

/** Asserts the status (showing the body when it differs) and answers the parsed body. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
export function expectStatus(response: LightMyRequestResponse, status: number): any {
  assert.equal(
    response.statusCode,
    status,
    `expected ${status}, got ${response.statusCode}: ${response.body}`,
  );
  return response.body ? response.json() : undefined;
}

export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  const body = expectStatus(response, status);
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  return body.error as { code: string; message: string; details?: { path: string; message: string }[] };
}

export async function createCalendar(
  app: FastifyInstance,
  user: SignedInUser,
  body: Record<string, unknown> = {},
): Promise<{ id: number; timezone: string; name: string }> {
  return expectStatus(await as(app, user).post('/api/calendars', { name: 'Work', ...body }), 201);
}

export async function defaultCalendarId(app: FastifyInstance, user: SignedInUser): Promise<number> {
  const list = expectStatus(await as(app, user).get('/api/calendars'), 200) as {
    id: number;
    isDefault: boolean;
    ownerId: number;
  }[];
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
    await as(app, user).post(`/api/calendars/${calendarId}/events`, {
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

/** An agent acting for `userId` under a permission with this scope (services take it as their actor). */
export function scopedAgent(userId: number, scope: AccessScope, agentId = 1): Actor {
  return agentActor(userId, { id: agentId, actions: new Set(), scope });
}
