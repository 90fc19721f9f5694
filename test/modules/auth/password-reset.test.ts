import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { mailTo, tokenIn } from '../../helpers/account-mail.js';
import {
  createTestApp,
  registerUser,
  type SignedInUser,
  type TestApp,
  twoInstances,
  uniqueEmail,
} from '../../helpers/app.js';

const forgot = (app: FastifyInstance, email: string, ip = '203.0.113.1') =>
  app.inject({ method: 'POST', url: '/api/auth/password/forgot', payload: { email }, remoteAddress: ip });
const reset = (app: FastifyInstance, token: string, password: string, ip = '203.0.113.1') =>
  app.inject({
    method: 'POST',
    url: '/api/auth/password/reset',
    payload: { token, password },
    remoteAddress: ip,
  });
const login = (app: FastifyInstance, email: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
const me = (app: FastifyInstance, user: { auth: Record<string, string> }) =>
  app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth });

describe('password reset and change', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp({ SMTP_URL: catcher.smtpUrl });
  });
  after(async () => {
    await t.close();
    await catcher.close();
  });
  const resetMail = (user: SignedInUser) => mailTo(catcher, user.email, /^Reset your password$/);

  test('forgot answers an unknown address exactly as a known one, and mails only the known', async () => {
    const user = await registerUser(t.app);
    const unknown = uniqueEmail('nobody');
    const known = await forgot(t.app, user.email, '203.0.113.10');
    const absent = await forgot(t.app, unknown, '203.0.113.11');
    assert.equal(known.statusCode, 202);
    assert.equal(absent.statusCode, 202);
    assert.equal(absent.body, known.body);
    assert.deepEqual(
      Object.keys(absent.headers)
        .filter((h) => h !== 'date' && h !== 'x-request-id')
        .sort(),
      Object.keys(known.headers)
        .filter((h) => h !== 'date' && h !== 'x-request-id')
        .sort(),
    );
    await resetMail(user);
    assert.equal((await catcher.messages()).filter((m) => m.envelope.to.includes(unknown)).length, 0);

    // Timing: the medians of rounds taken in turns (a fresh address and IP each, under the limits).
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const someone = await registerUser(t.app);
      for (const [email, times] of [
        [someone.email, knownTimes],
        [uniqueEmail(), unknownTimes],
      ] as const) {
        const begin = performance.now();
        await forgot(t.app, email, `203.0.113.${100 + i}`);
        times.push(performance.now() - begin);
      }
    }
    const median = (times: number[]) => times.sort((a, b) => a - b)[3]!;
    assert.ok(
      Math.abs(median(knownTimes) - median(unknownTimes)) < 30,
      `known ${median(knownTimes)} ms, unknown ${median(unknownTimes)} ms`,
    );
  });

  test('a reset link works once, sets the password, verifies the address, ends every session and mails a notice', async () => {
    const user = await registerUser(t.app, 'Rosa');
    assert.equal((await forgot(t.app, user.email, '203.0.113.20')).statusCode, 202);
    const token = tokenIn(await resetMail(user), 'reset-password');
    catcher.clear();
    const done = await reset(t.app, token, 'a brand new password', '203.0.113.20');
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { passwordChanged: true });
    assert.equal((await me(t.app, user)).statusCode, 401, 'the session ended');
    assert.equal((await login(t.app, user.email, user.password)).statusCode, 401);
    const signedIn = await login(t.app, user.email, 'a brand new password');
    assert.equal(signedIn.statusCode, 200);
    assert.equal(signedIn.json().user.emailVerified, true, 'the link proved the mailbox');
    assert.match((await mailTo(catcher, user.email, /^Your password was changed$/)).text ?? '', /Hello Rosa/);

    const twice = await reset(t.app, token, 'yet another password', '203.0.113.20');
    assert.equal(twice.statusCode, 410);
    assert.equal(twice.json().error.code, 'LINK_EXPIRED');
    assert.equal((await login(t.app, user.email, 'a brand new password')).statusCode, 200, 'unchanged');
  });

  test('two resets: only the newest link works', async () => {
    const user = await registerUser(t.app);
    await forgot(t.app, user.email, '203.0.113.30');
    const older = tokenIn(await resetMail(user), 'reset-password');
    catcher.clear();
    await forgot(t.app, user.email, '203.0.113.30');
    const newer = tokenIn(await resetMail(user), 'reset-password');
    const refused = await reset(t.app, older, 'the older link password', '203.0.113.30');
    assert.equal(refused.statusCode, 410);
    assert.equal((await me(t.app, user)).statusCode, 200, 'a refused link ends nothing');
    assert.equal((await reset(t.app, newer, 'the newer link password', '203.0.113.30')).statusCode, 200);
    assert.equal((await login(t.app, user.email, 'the newer link password')).statusCode, 200);
  });

  test('bad, altered and expired tokens change nothing', async () => {
    const user = await registerUser(t.app);
    const start = Date.now();
    await forgot(t.app, user.email, '203.0.113.40');
    const token = tokenIn(await resetMail(user), 'reset-password');
    const altered = await reset(t.app, `${token}x`, 'an altered link password', '203.0.113.41');
    assert.equal(altered.statusCode, 400);
    assert.equal(altered.json().error.details[0].path, 'body.token');
    const short = await reset(t.app, token, 'short', '203.0.113.41');
    assert.equal(short.statusCode, 400);
    assert.equal(short.json().error.details[0].path, 'body.password');
    mock.timers.enable({ apis: ['Date'], now: start + 31 * 60_000 });
    try {
      const late = await reset(t.app, token, 'an expired link password', '203.0.113.42');
      assert.equal(late.statusCode, 410);
      assert.equal(late.json().error.code, 'LINK_EXPIRED');
    } finally {
      mock.timers.reset();
    }
    assert.equal((await me(t.app, user)).statusCode, 200);
    assert.equal(
      (await login(t.app, user.email, user.password)).statusCode,
      200,
      'the password is as it was',
    );
  });

  test('forgot and reset: 5 an hour per address and per IP', async () => {
    const user = await registerUser(t.app);
    for (let i = 0; i < 5; i += 1)
      assert.equal((await forgot(t.app, user.email, `198.51.100.${i}`)).statusCode, 202);
    const perAddress = await forgot(t.app, user.email, '198.51.100.99');
    assert.equal(perAddress.statusCode, 429);
    assert.equal(perAddress.json().error.code, 'RATE_LIMITED');
    for (let i = 0; i < 5; i += 1) await forgot(t.app, uniqueEmail(), '198.51.100.200');
    assert.equal((await forgot(t.app, uniqueEmail(), '198.51.100.200')).statusCode, 429, 'per IP');
    for (let i = 0; i < 5; i += 1) await reset(t.app, 'not-a-token', 'whatever password', '198.51.100.201');
    assert.equal((await reset(t.app, 'not-a-token', 'whatever password', '198.51.100.201')).statusCode, 429);
  });

  test('changing the password needs the current one, ends the other sessions and mails a notice', async () => {
    const user = await registerUser(t.app, 'Chang');
    const laptop = await login(t.app, user.email, user.password);
    const laptopAuth = { authorization: `Bearer ${laptop.json().accessToken}` };
    const change = (body: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/auth/password', headers: laptopAuth, payload: body });
    const wrong = await change({ currentPassword: 'not my password', newPassword: 'a changed password' });
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().error.details[0].path, 'body.currentPassword');
    assert.equal((await me(t.app, user)).statusCode, 200, 'a refused change ends nothing');
    const done = await change({ currentPassword: user.password, newPassword: 'a changed password' });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await me(t.app, { auth: laptopAuth })).statusCode, 200, 'this session stays');
    assert.equal((await me(t.app, user)).statusCode, 401, 'the others end');
    assert.equal((await login(t.app, user.email, 'a changed password')).statusCode, 200);
    await mailTo(catcher, user.email, /^Your password was changed$/);
  });
});

describe('password reset on two instances', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let close: () => Promise<void>;
  let catcher: MailCatcher;
  before(async () => {
    catcher = await startMailCatcher();
    ({ first, second, close } = await twoInstances({ SMTP_URL: catcher.smtpUrl }));
  });
  after(async () => {
    await close();
    await catcher.close();
  });

  test('a reset on one instance ends the sessions the other serves, at their next request', async () => {
    const user = await registerUser(first);
    const elsewhere = await login(second, user.email, user.password);
    const elsewhereAuth = { auth: { authorization: `Bearer ${elsewhere.json().accessToken}` } };
    assert.equal((await me(second, elsewhereAuth)).statusCode, 200);
    assert.equal((await me(second, user)).statusCode, 200);
    await forgot(second, user.email);
    const token = tokenIn(await mailTo(catcher, user.email, /^Reset your password$/), 'reset-password');
    assert.equal((await reset(first, token, 'reset on the first instance')).statusCode, 200);
    assert.equal((await me(second, elsewhereAuth)).statusCode, 401);
    assert.equal((await me(second, user)).statusCode, 401);
    const refresh = await second.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      headers: { 'x-csrf-token': 'c' },
      cookies: {
        refresh_token: elsewhere.cookies.find((c) => c.name === 'refresh_token')!.value,
        csrf_token: 'c',
      },
    });
    assert.equal(refresh.statusCode, 401);
  });
});
