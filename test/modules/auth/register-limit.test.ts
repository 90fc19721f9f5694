import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp, uniqueEmail } from '../../helpers/app.js';

describe('sign-up limit', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ REGISTER_RATE_LIMIT_MAX: '2' });
  });
  after(() => t.close());

  test('REGISTER_RATE_LIMIT_MAX sign-ups an hour per IP, then 429 RATE_LIMITED', async () => {
    const register = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: ip,
        payload: { email: uniqueEmail(), password: 'long enough password', name: 'Limited' },
      });
    assert.equal((await register('192.0.2.1')).statusCode, 201);
    assert.equal((await register('192.0.2.1')).statusCode, 201);
    const limited = await register('192.0.2.1');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error.code, 'RATE_LIMITED');
    assert.equal((await register('192.0.2.2')).statusCode, 201, 'another IP has its own count');
  });
});
