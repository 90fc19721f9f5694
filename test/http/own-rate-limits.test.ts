import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';
import { createCalendar } from '../helpers/calendars.js';
import { as, expectStatus } from '../helpers/http.js';

/**
 * Limits of their own (DECISIONS.md "Accounts", "What the review found, decided"): the
 * payment webhook takes 600 requests a minute per IP and each feed URL 120 a minute, beside
 * the global limit (which the test environment sets out of reach).
 */
describe('rate limits of their own', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('a feed URL answers 120 times a minute, then 429; another feed is not held back', async () => {
    const user = await registerUser(t.app);
    const feedOf = async () => {
      const calendar = await createCalendar(t.app, user);
      const { url } = expectStatus(await as(t.app, user).post(`/api/calendars/${calendar.id}/feed`), 201);
      return new URL(url).pathname;
    };
    const [first, second] = [await feedOf(), await feedOf()];
    const read = (path: string) => t.app.inject({ method: 'GET', url: path });
    for (let i = 0; i < 120; i++) assert.equal((await read(first)).statusCode, 200);
    const refused = await read(first);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'RATE_LIMITED');
    assert.equal((await read(second)).statusCode, 200);
  });

  test('the payment webhook answers 600 requests a minute per IP, then 429', async () => {
    const deliver = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/payments/webhooks',
        remoteAddress: ip,
        headers: { 'content-type': 'application/json', 'payment-signature': 't=1,v1=00' },
        payload: '{}',
      });
    for (let i = 0; i < 600; i++) assert.equal((await deliver('192.0.2.10')).statusCode, 400);
    assert.equal((await deliver('192.0.2.10')).statusCode, 429);
    assert.equal((await deliver('192.0.2.11')).statusCode, 400);
  });
});
