import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  cookieValue,
  createTestApp,
  registerUser,
  type SignedInUser,
  type TestApp,
  twoInstances,
} from '../../helpers/app.js';

/** Signs `user` in again (another browser); answers its bearer header and cookies. */
async function signIn(app: FastifyInstance, user: SignedInUser, userAgent = 'Laptop') {
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'user-agent': userAgent },
    payload: { email: user.email, password: user.password },
  });
  assert.equal(response.statusCode, 200, response.body);
  return {
    auth: { authorization: `Bearer ${response.json().accessToken}` },
    refresh: cookieValue(response, 'refresh_token')!,
    csrf: cookieValue(response, 'csrf_token')!,
  };
}

const me = (app: FastifyInstance, headers: Record<string, string>) =>
  app.inject({ method: 'GET', url: '/api/auth/me', headers });
const sessionsOf = (app: FastifyInstance, headers: Record<string, string>) =>
  app.inject({ method: 'GET', url: '/api/auth/sessions', headers });
const refreshWith = (app: FastifyInstance, session: { refresh: string; csrf: string }) =>
  app.inject({
    method: 'POST',
    url: '/api/auth/refresh',
    headers: { 'x-csrf-token': session.csrf },
    cookies: { refresh_token: session.refresh, csrf_token: session.csrf },
  });

describe('sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('each sign-in is a session, listed with its browser and last use; the current one is marked', async () => {
    const user = await registerUser(t.app);
    const laptop = await signIn(t.app, user, 'Laptop/1.0');
    const listed = await sessionsOf(t.app, laptop.auth);
    assert.equal(listed.statusCode, 200, listed.body);
    const sessions = listed.json() as Array<Record<string, unknown>>;
    assert.equal(sessions.length, 2);
    assert.deepEqual(Object.keys(sessions[0]!).sort(), [
      'createdAt',
      'current',
      'id',
      'lastUsedAt',
      'userAgent',
    ]);
    assert.deepEqual(
      sessions.map((s) => [s.userAgent, s.current]),
      [
        ['Laptop/1.0', true],
        ['lightMyRequest', false],
      ],
    );
    // An API key is no browser session: it cannot manage them.
    const key = await t.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: user.auth,
      payload: { label: 'script' },
    });
    assert.equal((await sessionsOf(t.app, { 'x-api-key': key.json().key })).statusCode, 401);
  });

  test("ending a session: its access token fails at its next request, its refresh token at once; another user's is 404", async () => {
    const user = await registerUser(t.app);
    const phone = await signIn(t.app, user, 'Phone');
    const phoneId = (await sessionsOf(t.app, phone.auth))
      .json()
      .find((s: { current: boolean }) => s.current).id;
    const stranger = await registerUser(t.app);
    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/sessions/${phoneId}`,
      headers: stranger.auth,
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await me(t.app, phone.auth)).statusCode, 200, "another user's attempt changed nothing");

    const ended = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/sessions/${phoneId}`,
      headers: user.auth,
    });
    assert.equal(ended.statusCode, 204, ended.body);
    assert.equal((await me(t.app, phone.auth)).statusCode, 401);
    assert.equal((await refreshWith(t.app, phone)).statusCode, 401);
    assert.equal((await me(t.app, user.auth)).statusCode, 200, 'the other session goes on');
    assert.equal((await sessionsOf(t.app, user.auth)).json().length, 1);
    const bad = await t.app.inject({ method: 'DELETE', url: '/api/auth/sessions/abc', headers: user.auth });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'VALIDATION_FAILED');
  });

  test('revoke-others ends every session but the current one; logout ends its own', async () => {
    const user = await registerUser(t.app);
    const laptop = await signIn(t.app, user, 'Laptop');
    const phone = await signIn(t.app, user, 'Phone');
    const revoked = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sessions/revoke-others',
      headers: phone.auth,
    });
    assert.equal(revoked.statusCode, 204, revoked.body);
    assert.equal((await me(t.app, user.auth)).statusCode, 401);
    assert.equal((await me(t.app, laptop.auth)).statusCode, 401);
    assert.equal((await refreshWith(t.app, laptop)).statusCode, 401);
    assert.equal((await me(t.app, phone.auth)).statusCode, 200);
    const refreshed = await refreshWith(t.app, phone);
    assert.equal(refreshed.statusCode, 200, 'the current session refreshes');
    const phoneNow = {
      auth: { authorization: `Bearer ${refreshed.json().accessToken}` },
      refresh: cookieValue(refreshed, 'refresh_token')!,
      csrf: cookieValue(refreshed, 'csrf_token')!,
    };
    assert.deepEqual(
      (await sessionsOf(t.app, phoneNow.auth)).json().map((s: { userAgent: string }) => s.userAgent),
      ['Phone'],
      'a refresh stays in its session',
    );

    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { 'x-csrf-token': phoneNow.csrf },
      cookies: { refresh_token: phoneNow.refresh, csrf_token: phoneNow.csrf },
    });
    assert.equal(logout.statusCode, 204);
    assert.equal((await me(t.app, phoneNow.auth)).statusCode, 401, 'signing out ends the access token too');
  });

  test('a replayed refresh token ends its session', async () => {
    const user = await registerUser(t.app);
    const laptop = await signIn(t.app, user);
    assert.equal((await refreshWith(t.app, laptop)).statusCode, 200);
    assert.equal((await refreshWith(t.app, laptop)).statusCode, 401, 'the rotated-away token is a replay');
    assert.equal((await me(t.app, laptop.auth)).statusCode, 401);
    assert.equal((await me(t.app, user.auth)).statusCode, 200, 'other sessions are untouched');
  });

  test('last use is written at most once a minute', async () => {
    const start = Date.parse('2031-05-01T10:00:00.000Z');
    mock.timers.enable({ apis: ['Date'], now: start });
    try {
      const user = await registerUser(t.app);
      const lastUsed = async () => (await sessionsOf(t.app, user.auth)).json()[0].lastUsedAt as string;
      assert.equal(await lastUsed(), new Date(start).toISOString());
      mock.timers.setTime(start + 30_000);
      assert.equal(await lastUsed(), new Date(start).toISOString());
      mock.timers.setTime(start + 90_000);
      await me(t.app, user.auth);
      assert.equal(await lastUsed(), new Date(start + 90_000).toISOString());
    } finally {
      mock.timers.reset();
    }
  });
});

describe('sessions on two instances', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let close: () => Promise<void>;
  before(async () => {
    ({ first, second, close } = await twoInstances());
  });
  after(() => close());

  test('a session ended on one instance fails its very next request on the other', async () => {
    const user = await registerUser(first);
    const phone = await signIn(first, user, 'Phone');
    // The other instance has verified the token and read the session before.
    assert.equal((await me(second, phone.auth)).statusCode, 200);
    const phoneId = (await sessionsOf(second, phone.auth))
      .json()
      .find((s: { current: boolean }) => s.current).id;
    const ended = await first.inject({
      method: 'DELETE',
      url: `/api/auth/sessions/${phoneId}`,
      headers: user.auth,
    });
    assert.equal(ended.statusCode, 204);
    assert.equal((await me(second, phone.auth)).statusCode, 401);
    assert.equal((await refreshWith(second, phone)).statusCode, 401);
    assert.equal((await me(second, user.auth)).statusCode, 200);
  });
});
