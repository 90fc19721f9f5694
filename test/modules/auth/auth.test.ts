import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cookieValue, createTestApp, registerUser, type TestApp, uniqueEmail } from '../../helpers/app.js';

describe('users and login', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ LOGIN_RATE_LIMIT_MAX: '5' });
  });
  after(() => t.close());

  test('register answers a session, sets the refresh and CSRF cookies, and me returns the user', async () => {
    const user = await registerUser(t.app, 'Ada');
    const body = user.response.json();
    assert.equal(body.tokenType, 'Bearer');
    assert.equal(body.expiresIn, 900);
    assert.equal(body.user.email, user.email);
    assert.equal(body.user.plan, 'STORE');
    assert.equal(body.user.isGlobalAdmin, false);
    assert.equal(body.user.activeOrganisationId, null);
    const refresh = user.response.cookies.find((c) => c.name === 'refresh_token');
    assert.ok(refresh?.httpOnly);
    assert.equal(refresh?.path, '/api/auth');
    assert.equal(refresh?.sameSite, 'Lax');
    assert.ok(cookieValue(user.response, 'csrf_token'));
    assert.equal(JSON.stringify(body).includes('password'), false);

    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth });
    assert.equal(me.statusCode, 200);
    assert.deepEqual(Object.keys(me.json()).sort(), [
      'activeOrganisationId',
      'createdAt',
      'email',
      'emailVerified',
      'id',
      'isGlobalAdmin',
      'name',
      'plan',
      'twoFactorEnabled',
    ]);
    assert.equal(me.json().name, 'Ada');
    // Registering proves nothing about the address: the mailed link does.
    assert.equal(me.json().emailVerified, false);
  });

  test('register stores the email lowercase and refuses a second account with it (409 EMAIL_TAKEN)', async () => {
    const email = uniqueEmail().toUpperCase();
    const payload = { email, password: 'long enough password', name: 'A' };
    const first = await t.app.inject({ method: 'POST', url: '/api/auth/register', payload });
    assert.equal(first.statusCode, 201);
    assert.equal(first.json().user.email, email.toLowerCase());
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { ...payload, email: email.toLowerCase() },
    });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'EMAIL_TAKEN');
  });

  test('register validates the body with precise details', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'not-an-email', password: 'short', name: 'x', admin: true },
    });
    assert.equal(response.statusCode, 400);
    const { error } = response.json();
    assert.equal(error.code, 'VALIDATION_FAILED');
    const paths = error.details.map((d: { path: string }) => d.path).sort();
    assert.deepEqual(paths, ['body', 'body.email', 'body.password']);
    assert.match(
      error.details.find((d: { path: string }) => d.path === 'body').message,
      /unknown field.*admin/,
    );
    assert.ok(error.requestId);
  });

  test('login accepts the right password and refuses a wrong one without saying which part was wrong', async () => {
    const user = await registerUser(t.app);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    assert.equal(ok.statusCode, 200);
    assert.ok(ok.json().accessToken);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: 'wrong password!' },
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error.code, 'UNAUTHENTICATED');
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: uniqueEmail(), password: 'wrong password!' },
    });
    assert.equal(unknown.statusCode, 401);
    assert.equal(unknown.json().error.message, wrong.json().error.message);
  });

  test('login attempts are limited per email (429 with Retry-After)', async () => {
    const user = await registerUser(t.app);
    const attempt = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { email: user.email, password: 'wrong password!' },
      });
    // Different IPs, so only the per-email counter can trip.
    for (let i = 0; i < 5; i++) assert.equal((await attempt(`10.0.0.${i + 1}`)).statusCode, 401);
    const limited = await attempt('10.0.0.99');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) > 0);
  });

  test('login attempts are limited per IP', async () => {
    const ip = '10.1.0.1';
    for (let i = 0; i < 5; i++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { email: uniqueEmail(), password: 'whatever pass' },
      });
      assert.equal(r.statusCode, 401);
    }
    const limited = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      payload: { email: uniqueEmail(), password: 'whatever pass' },
    });
    assert.equal(limited.statusCode, 429);
  });

  test('refresh needs the CSRF header, rotates the cookie, and refuses the rotated cookie (family revoked)', async () => {
    const user = await registerUser(t.app);
    const refresh = cookieValue(user.response, 'refresh_token')!;
    const csrf = cookieValue(user.response, 'csrf_token')!;
    const cookies = { refresh_token: refresh, csrf_token: csrf };

    const missing = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', cookies });
    assert.equal(missing.statusCode, 403);
    assert.equal(missing.json().error.code, 'CSRF_FAILED');
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      cookies,
      headers: { 'x-csrf-token': 'not-the-cookie' },
    });
    assert.equal(wrong.statusCode, 403);
    assert.equal(wrong.json().error.code, 'CSRF_FAILED');

    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      cookies,
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(rotated.statusCode, 200);
    const newRefresh = cookieValue(rotated, 'refresh_token')!;
    const newCsrf = cookieValue(rotated, 'csrf_token')!;
    assert.notEqual(newRefresh, refresh);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${rotated.json().accessToken}` },
    });
    assert.equal(me.statusCode, 200);

    const replay = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      cookies,
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(replay.statusCode, 401);
    // The replay revoked the whole family: the newest cookie is dead too.
    const afterReplay = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      cookies: { refresh_token: newRefresh, csrf_token: newCsrf },
      headers: { 'x-csrf-token': newCsrf },
    });
    assert.equal(afterReplay.statusCode, 401);
  });

  test('logout needs the CSRF header and ends the refresh session', async () => {
    const user = await registerUser(t.app);
    const cookies = {
      refresh_token: cookieValue(user.response, 'refresh_token')!,
      csrf_token: cookieValue(user.response, 'csrf_token')!,
    };
    const refused = await t.app.inject({ method: 'POST', url: '/api/auth/logout', cookies });
    assert.equal(refused.statusCode, 403);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies,
      headers: { 'x-csrf-token': cookies.csrf_token },
    });
    assert.equal(out.statusCode, 204);
    const refresh = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      cookies,
      headers: { 'x-csrf-token': cookies.csrf_token },
    });
    assert.equal(refresh.statusCode, 401);
  });

  test('guards refuse missing, malformed and foreign credentials', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/auth/me' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error.code, 'UNAUTHENTICATED');
    for (const authorization of ['Bearer nonsense', 'Basic abc', 'Bearer', 'ApiKey rs_uk_unknown']) {
      const r = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization } });
      assert.equal(r.statusCode, 401, authorization);
    }
  });

  test('API keys: created once-shown, work in both headers, listed without the key, 401 once revoked', async () => {
    const user = await registerUser(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: user.auth,
      payload: { label: 'ci' },
    });
    assert.equal(created.statusCode, 201);
    const { id, key, prefix, label } = created.json();
    assert.equal(label, 'ci');
    assert.ok(key.startsWith(prefix));

    for (const headers of [{ 'x-api-key': key }, { authorization: `ApiKey ${key}` }]) {
      const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().id, user.id);
    }

    const list = await t.app.inject({ method: 'GET', url: '/api/auth/api-keys', headers: user.auth });
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().length, 1);
    assert.equal(list.json()[0].key, undefined);
    assert.ok(list.json()[0].lastUsedAt, 'last-used time is recorded');
    assert.equal(list.body.includes(key), false);

    const other = await registerUser(t.app);
    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/api-keys/${id}`,
      headers: other.auth,
    });
    assert.equal(foreign.statusCode, 404);

    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/api-keys/${id}`,
      headers: user.auth,
    });
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.json().revokedAt);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': key } });
    assert.equal(me.statusCode, 401);
  });

  test('a login JWT signed with another secret or for another audience is refused', async () => {
    const { SignJWT } = await import('jose');
    const user = await registerUser(t.app);
    const forge = (secret: string, audience: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(user.id))
        .setIssuer('reservation-service')
        .setAudience(audience)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
    for (const token of [
      await forge('x'.repeat(40), 'reservation-service-api'),
      await forge('dev-only-login-jwt-secret-change-me-0123456789', 'http://service.test/api/mcp'),
    ]) {
      const r = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(r.statusCode, 401);
    }
  });
});
