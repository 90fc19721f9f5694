import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createEphemeralStore } from '../../src/lib/ephemeral-store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

// Redis runs on every machine of this project (127.0.0.1:6379); CI uses it as is.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

describe('ephemeral store', () => {
  for (const kind of ['memory', 'redis'] as const) {
    test(`${kind}: hit counts within a window and mark expires`, async () => {
      const store = createEphemeralStore(kind === 'redis' ? REDIS_URL : undefined);
      try {
        const key = `test:${kind}:${randomIp()}:${Date.now()}`;
        assert.equal((await store.hit(key, 60)).count, 1);
        const second = await store.hit(key, 60);
        assert.equal(second.count, 2);
        assert.ok(second.resetInSeconds > 0 && second.resetInSeconds <= 60);
        assert.equal(await store.isMarked(`${key}:mark`), false);
        await store.mark(`${key}:mark`, 1);
        assert.equal(await store.isMarked(`${key}:mark`), true);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        assert.equal(await store.isMarked(`${key}:mark`), false);
      } finally {
        await store.close();
      }
    });

    test(`${kind}: keepGreatest keeps the greater value in text order, until it expires`, async () => {
      const store = createEphemeralStore(kind === 'redis' ? REDIS_URL : undefined);
      try {
        const key = `test:${kind}:greatest:${randomIp()}:${Date.now()}`;
        assert.equal(await store.read(key), undefined);
        await store.keepGreatest(key, '0000000000000B00', 1);
        await store.keepGreatest(key, '0000000000000A00', 1);
        assert.equal(await store.read(key), '0000000000000B00');
        await store.keepGreatest(key, '0000000100000000', 1);
        assert.equal(await store.read(key), '0000000100000000');
        await new Promise((resolve) => setTimeout(resolve, 1100));
        assert.equal(await store.read(key), undefined);
      } finally {
        await store.close();
      }
    });
  }
});

describe('two instances sharing Redis', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    const env = { REDIS_URL, RATE_LIMIT_MAX: '4' };
    a = await createTestApp(env);
    b = await createTestApp(env);
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  test('the global rate limit is counted across instances', async () => {
    const ip = randomIp();
    for (const t of [a, b, a, b]) {
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/', remoteAddress: ip })).statusCode, 200);
    }
    const limited = await a.app.inject({ method: 'GET', url: '/api/', remoteAddress: ip });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error.code, 'RATE_LIMITED');
  });

  test('a honeypot hit on one instance blocks /api/auth/* on the other', async () => {
    const ip = randomIp();
    // Only a credential submitted to the trap blocks (a visit to its page does not).
    const hit = await a.app.inject({
      method: 'POST',
      url: '/api/security/honeypot/submit',
      remoteAddress: ip,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=admin&password=admin',
    });
    assert.equal(hit.statusCode, 401);
    const blocked = await b.app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: ip });
    assert.equal(blocked.statusCode, 403);
    assert.equal(blocked.json().error.code, 'BLOCKED');
  });
});
