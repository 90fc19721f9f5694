import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { agentActor } from '../../../src/lib/actor.js';
import {
  cookieValue,
  createTestApp,
  registerUser,
  type SignedInUser,
  type TestApp,
} from '../../helpers/app.js';
import { call, expectStatus } from '../../helpers/http.js';
import { createTeam } from '../../helpers/organisations.js';

const STEP_MS = 30_000;

/** The code of `secret` for the time-step `step` (RFC 6238 as an authenticator app computes it). */
function codeAt(secret: string, step: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: step * STEP_MS });
}

/** The time-step the (fake) clock is in now. */
const stepNow = () => Math.floor(Date.now() / STEP_MS);

/** Freezes Date in the middle of the current time-step, so a step boundary never falls inside a test. */
function freezeClock() {
  mock.timers.enable({ apis: ['Date'], now: stepNow() * STEP_MS + STEP_MS / 2 });
}
const advanceSteps = (steps: number) => mock.timers.tick(steps * STEP_MS);

/** Sets up and turns on two-factor for `user`; answers the secret and the recovery codes. */
async function enableTwoFactor(app: FastifyInstance, user: SignedInUser) {
  const setup = expectStatus(await call(app, user, 'POST', '/api/auth/2fa/setup'), 200);
  const enabled = expectStatus(
    await call(app, user, 'POST', '/api/auth/2fa/enable', { code: codeAt(setup.secret, stepNow()) }),
    200,
  );
  return { secret: setup.secret as string, recoveryCodes: enabled.recoveryCodes as string[] };
}

function login(app: FastifyInstance, user: SignedInUser, remoteAddress = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: user.email, password: user.password },
    remoteAddress,
  });
}

/** The password step of a login with two-factor on: answers the challenge. */
async function challengeFor(app: FastifyInstance, user: SignedInUser): Promise<string> {
  const response = await login(app, user);
  const body = expectStatus(response, 200);
  assert.deepEqual(Object.keys(body).sort(), ['challenge', 'twoFactorRequired']);
  assert.equal(body.twoFactorRequired, true);
  assert.equal(response.cookies.length, 0, 'no cookies before the second step');
  return body.challenge;
}

function secondStep(app: FastifyInstance, payload: Record<string, string>, remoteAddress = '127.0.0.1') {
  return app.inject({ method: 'POST', url: '/api/auth/login/2fa', payload, remoteAddress });
}

describe('two-factor sign-in (TOTP)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ LOGIN_RATE_LIMIT_MAX: '1000' });
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  test('set-up answers a secret and an otpauth URL; a code of it turns two-factor on with 10 recovery codes', async () => {
    const user = await registerUser(t.app);
    freezeClock();
    const setup = expectStatus(await call(t.app, user, 'POST', '/api/auth/2fa/setup'), 200);
    assert.match(setup.secret, /^[A-Z2-7]{32}$/);
    const url = new URL(setup.otpauthUrl);
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.searchParams.get('issuer'), 'frontend.test');
    assert.equal(url.searchParams.get('secret'), setup.secret);
    assert.equal(url.searchParams.get('digits'), '6');
    assert.equal(url.searchParams.get('period'), '30');
    // Pending until a code confirms it.
    assert.equal(expectStatus(await call(t.app, user, 'GET', '/api/auth/me'), 200).twoFactorEnabled, false);
    assert.equal((await login(t.app, user)).json().accessToken !== undefined, true);

    const wrong = String((Number(codeAt(setup.secret, stepNow())) + 1) % 1_000_000).padStart(6, '0');
    expectStatus(
      await call(t.app, user, 'POST', '/api/auth/2fa/enable', { code: wrong }),
      401,
      'TWO_FACTOR_INVALID',
    );
    const enabled = expectStatus(
      await call(t.app, user, 'POST', '/api/auth/2fa/enable', { code: codeAt(setup.secret, stepNow()) }),
      200,
    );
    assert.equal(enabled.recoveryCodes.length, 10);
    assert.equal(new Set(enabled.recoveryCodes).size, 10);
    assert.equal(expectStatus(await call(t.app, user, 'GET', '/api/auth/me'), 200).twoFactorEnabled, true);
    expectStatus(await call(t.app, user, 'POST', '/api/auth/2fa/setup'), 409, 'CONFLICT');
  });

  test('a code is accepted one step back and one step ahead, not two back, and once only', async () => {
    const user = await registerUser(t.app);
    freezeClock();
    const { secret } = await enableTwoFactor(t.app, user);
    advanceSteps(3);
    const now = stepNow();

    const twoBack = await secondStep(t.app, {
      challenge: await challengeFor(t.app, user),
      code: codeAt(secret, now - 2),
    });
    expectStatus(twoBack, 401, 'TWO_FACTOR_INVALID');

    const challenge = await challengeFor(t.app, user);
    const oneBack = await secondStep(t.app, { challenge, code: codeAt(secret, now - 1) });
    const session = expectStatus(oneBack, 200);
    assert.equal(session.tokenType, 'Bearer');
    assert.equal(session.user.twoFactorEnabled, true);
    assert.ok(cookieValue(oneBack, 'refresh_token'));
    assert.ok(cookieValue(oneBack, 'csrf_token'));
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${session.accessToken}` },
    });
    expectStatus(me, 200);
    // The challenge was used: it opens nothing again.
    expectStatus(await secondStep(t.app, { challenge, code: codeAt(secret, now) }), 410, 'LINK_EXPIRED');

    // Replayed in its window (another challenge, the same code): refused.
    const replay = await secondStep(t.app, {
      challenge: await challengeFor(t.app, user),
      code: codeAt(secret, now - 1),
    });
    expectStatus(replay, 401, 'TWO_FACTOR_INVALID');

    const ahead = await secondStep(t.app, {
      challenge: await challengeFor(t.app, user),
      code: codeAt(secret, now + 1),
    });
    expectStatus(ahead, 200);
    const twoAhead = await secondStep(t.app, {
      challenge: await challengeFor(t.app, user),
      code: codeAt(secret, now + 2),
    });
    expectStatus(twoAhead, 401, 'TWO_FACTOR_INVALID');
  });

  test('a recovery code signs in once (any case, hyphen or not); used again it is refused', async () => {
    const user = await registerUser(t.app);
    freezeClock();
    const { recoveryCodes } = await enableTwoFactor(t.app, user);
    const [first, second] = recoveryCodes as [string, string];
    expectStatus(
      await secondStep(t.app, { challenge: await challengeFor(t.app, user), recoveryCode: first }),
      200,
    );
    expectStatus(
      await secondStep(t.app, { challenge: await challengeFor(t.app, user), recoveryCode: first }),
      401,
      'TWO_FACTOR_INVALID',
    );
    const typed = second.replace('-', ' ').toUpperCase();
    expectStatus(
      await secondStep(t.app, { challenge: await challengeFor(t.app, user), recoveryCode: typed }),
      200,
    );
  });

  test('a challenge lasts 5 minutes; the second step validates its body', async () => {
    const user = await registerUser(t.app);
    freezeClock();
    const { secret } = await enableTwoFactor(t.app, user);
    const challenge = await challengeFor(t.app, user);
    mock.timers.tick(5 * 60_000);
    const expired = await secondStep(t.app, { challenge, code: codeAt(secret, stepNow()) });
    expectStatus(expired, 410, 'LINK_EXPIRED');
    expectStatus(await secondStep(t.app, { challenge: 'made-up', code: '123456' }), 410, 'LINK_EXPIRED');

    const fresh = await challengeFor(t.app, user);
    const both = await secondStep(t.app, { challenge: fresh, code: '123456', recoveryCode: 'abcde-fghij' });
    assert.deepEqual(expectStatus(both, 400, 'VALIDATION_FAILED').error.details, [
      { path: 'body', message: 'give exactly one of code and recoveryCode', code: 'custom' },
    ]);
    const letters = await secondStep(t.app, { challenge: fresh, code: 'abcdef' });
    assert.deepEqual(expectStatus(letters, 400, 'VALIDATION_FAILED').error.details, [
      { path: 'body.code', message: 'must be the 6-digit code of your authenticator app', code: 'custom' },
    ]);
  });

  test('turning two-factor off needs the password and a code; then the password alone signs in', async () => {
    const user = await registerUser(t.app);
    freezeClock();
    const { secret, recoveryCodes } = await enableTwoFactor(t.app, user);
    advanceSteps(1);
    const code = codeAt(secret, stepNow());
    const disable = (payload: Record<string, string>) =>
      call(t.app, user, 'POST', '/api/auth/2fa/disable', payload);

    expectStatus(await disable({ password: user.password }), 400, 'VALIDATION_FAILED');
    expectStatus(await disable({ password: 'not the password', code }), 400, 'VALIDATION_FAILED');
    expectStatus(
      await disable({ password: user.password, code: '000000' === code ? '111111' : '000000' }),
      401,
      'TWO_FACTOR_INVALID',
    );
    assert.equal(expectStatus(await call(t.app, user, 'GET', '/api/auth/me'), 200).twoFactorEnabled, true);

    // A recovery code does too (the way back for someone who lost the app).
    assert.deepEqual(expectStatus(await disable({ password: user.password, code: recoveryCodes[0]! }), 200), {
      twoFactorEnabled: false,
    });
    assert.equal(expectStatus(await call(t.app, user, 'GET', '/api/auth/me'), 200).twoFactorEnabled, false);
    const plain = expectStatus(await login(t.app, user), 200);
    assert.equal(typeof plain.accessToken, 'string');
  });
});

describe('the limiters and two-factor', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ LOGIN_RATE_LIMIT_MAX: '3', TWO_FACTOR_RATE_LIMIT_MAX: '100' });
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  test('wrong codes count as wrong passwords do, per IP and per email', async () => {
    const user = await registerUser(t.app);
    freezeClock();
    const { secret } = await enableTwoFactor(t.app, user);
    const ip = '10.0.0.7';
    const response = await login(t.app, user, ip);
    const { challenge } = expectStatus(response, 200);
    const good = codeAt(secret, stepNow() + 1);
    const wrong = good === '000000' ? '111111' : '000000';
    // The password counted once; two wrong codes make three.
    expectStatus(await secondStep(t.app, { challenge, code: wrong }, ip), 401, 'TWO_FACTOR_INVALID');
    expectStatus(await secondStep(t.app, { challenge, code: wrong }, ip), 401, 'TWO_FACTOR_INVALID');
    expectStatus(await secondStep(t.app, { challenge, code: good }, ip), 429, 'RATE_LIMITED');
    // The address is held from elsewhere too: its password is refused from another IP.
    expectStatus(await login(t.app, user, '10.0.0.8'), 429, 'RATE_LIMITED');
  });
});

describe('the second step has its own limit', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ TWO_FACTOR_RATE_LIMIT_MAX: '2' });
  });
  after(() => t.close());

  test('past TWO_FACTOR_RATE_LIMIT_MAX a quarter hour per IP: 429', async () => {
    const ip = '10.0.0.9';
    expectStatus(await secondStep(t.app, { challenge: 'a', code: '123456' }, ip), 410, 'LINK_EXPIRED');
    expectStatus(await secondStep(t.app, { challenge: 'b', code: '123456' }, ip), 410, 'LINK_EXPIRED');
    expectStatus(await secondStep(t.app, { challenge: 'c', code: '123456' }, ip), 429, 'RATE_LIMITED');
  });
});

describe('an organisation that requires two-factor of its staff', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ LOGIN_RATE_LIMIT_MAX: '1000' });
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  test('only an OWNER with two-factor on may turn it on', async () => {
    const team = await createTeam(t.app);
    const path = `/api/organisations/${team.organisationId}`;
    expectStatus(await call(t.app, team.admin, 'PATCH', path, { requireTwoFactor: true }), 403, 'FORBIDDEN');
    expectStatus(
      await call(t.app, team.owner, 'PATCH', path, { requireTwoFactor: true }),
      403,
      'TWO_FACTOR_REQUIRED',
    );
    freezeClock();
    await enableTwoFactor(t.app, team.owner);
    const updated = expectStatus(
      await call(t.app, team.owner, 'PATCH', path, { requireTwoFactor: true }),
      200,
    );
    assert.equal(updated.requireTwoFactor, true);
    expectStatus(
      await call(t.app, team.owner, 'PATCH', path, { requireTwoFactor: 'yes' }),
      400,
      'VALIDATION_FAILED',
    );
  });

  test('refuses its OWNER, ADMIN and MANAGER without two-factor on its staff routes, not on their own', async () => {
    const team = await createTeam(t.app);
    freezeClock();
    await enableTwoFactor(t.app, team.owner);
    const orgPath = `/api/organisations/${team.organisationId}`;
    expectStatus(await call(t.app, team.owner, 'PATCH', orgPath, { requireTwoFactor: true }), 200);

    for (const staff of [team.admin, team.manager]) {
      expectStatus(await call(t.app, staff, 'GET', '/api/resources'), 403, 'TWO_FACTOR_REQUIRED');
      expectStatus(await call(t.app, staff, 'GET', `${orgPath}/users/list`), 403, 'TWO_FACTOR_REQUIRED');
      // Their own: the account, their calendars, their organisations, choosing the active one.
      expectStatus(await call(t.app, staff, 'GET', '/api/auth/me'), 200);
      expectStatus(await call(t.app, staff, 'GET', '/api/calendars'), 200);
      const list = expectStatus(await call(t.app, staff, 'GET', '/api/organisations'), 200);
      assert.equal(list[0].requireTwoFactor, true);
      expectStatus(
        await call(t.app, staff, 'PATCH', '/api/organisations/active', {
          organisationId: team.organisationId,
        }),
        200,
      );
    }
    // A key acts for its person, and is refused alike (as an agent of the person is).
    const key = expectStatus(
      await call(t.app, team.admin, 'POST', '/api/auth/api-keys', { label: 'script' }),
      201,
    );
    const withKey = await t.app.inject({
      method: 'GET',
      url: '/api/resources',
      headers: { 'x-api-key': key.key },
    });
    expectStatus(withKey, 403, 'TWO_FACTOR_REQUIRED');
    // An agent's call reads the tenant afresh (no credential read in its request): refused too.
    const agent = agentActor(team.admin.id, { id: 1, actions: new Set(), scope: {} });
    await assert.rejects(t.app.services.organisations.requireTenant(agent), { code: 'TWO_FACTOR_REQUIRED' });
    // A MEMBER is not staff; the OWNER has two-factor on.
    expectStatus(await call(t.app, team.member, 'GET', '/api/resources'), 200);
    expectStatus(await call(t.app, team.owner, 'GET', '/api/resources'), 200);

    // Two-factor on: the very next request passes (read with the credential, no cache).
    await enableTwoFactor(t.app, team.admin);
    expectStatus(await call(t.app, team.admin, 'GET', '/api/resources'), 200);
    expectStatus(await call(t.app, team.admin, 'GET', `${orgPath}/users/list`), 200);
    // Leaving is the member's own business.
    expectStatus(await call(t.app, team.manager, 'DELETE', `${orgPath}/users/${team.manager.id}`), 204);
  });
});
