import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

describe('error envelope', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ BODY_LIMIT_BYTES: '2048' });
  });
  after(() => t.close());

  const envelope = (body: { success: boolean; error: Record<string, unknown> }, code: string) => {
    assert.equal(body.success, false);
    assert.equal(body.error.code, code);
    assert.equal(typeof body.error.message, 'string');
    assert.equal(typeof body.error.requestId, 'string');
  };

  test('unknown route answers 404 NOT_FOUND', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/nope' });
    assert.equal(r.statusCode, 404);
    envelope(r.json(), 'NOT_FOUND');
    assert.equal(r.json().error.requestId, r.headers['x-request-id']);
  });

  test('malformed JSON answers 400 VALIDATION_FAILED', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    assert.equal(r.statusCode, 400);
    envelope(r.json(), 'VALIDATION_FAILED');
    assert.match(r.json().error.message, /not valid JSON/);
  });

  test('an oversized body answers 413 PAYLOAD_TOO_LARGE', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/monitoring/frontend-errors',
      payload: { source: 's', message: 'm', stack: 'x'.repeat(5000) },
    });
    assert.equal(r.statusCode, 413);
    envelope(r.json(), 'PAYLOAD_TOO_LARGE');
  });

  test('unknown body fields answer 400 with the field named', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/monitoring/frontend-errors',
      payload: { source: 's', message: 'm', extra: 1 },
    });
    assert.equal(r.statusCode, 400);
    envelope(r.json(), 'VALIDATION_FAILED');
    assert.deepEqual(r.json().error.details, [
      { path: 'body', message: 'unknown field(s): extra', code: 'unrecognized_keys' },
    ]);
  });

  test("a schema failure's detail names its rule and bound, so a page can say it in words", async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/monitoring/frontend-errors',
      payload: { source: 's'.repeat(181), severity: 'loud' },
    });
    assert.equal(r.statusCode, 400);
    const details = r.json().error.details as Array<Record<string, unknown>>;
    const byPath = Object.fromEntries(details.map(({ path, ...rest }) => [path, rest]));
    assert.deepEqual(byPath['body.source'], {
      message: byPath['body.source']!.message,
      code: 'too_big',
      origin: 'string',
      maximum: 180,
      inclusive: true,
    });
    assert.equal(byPath['body.message']!.code, 'invalid_type');
    assert.equal(byPath['body.severity']!.code, 'invalid_value');
  });

  test('a bad path parameter is a 400, not a 500', async () => {
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'p@example.test', password: 'long enough pw', name: 'P' },
    });
    const r = await t.app.inject({
      method: 'DELETE',
      url: '/api/auth/api-keys/abc',
      headers: { authorization: `Bearer ${login.json().accessToken}` },
    });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().error.details[0].path, 'params.id');
  });

  test('an empty body sent as JSON is no body: bodiless routes work, routes needing one answer 400', async () => {
    const headers = { 'content-type': 'application/json' };
    const refresh = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', headers, payload: '' });
    assert.equal(refresh.statusCode, 403, 'reaches the CSRF check');
    assert.equal(refresh.json().error.code, 'CSRF_FAILED');
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', headers, payload: '' });
    assert.equal(login.statusCode, 400);
    assert.equal(login.json().error.code, 'VALIDATION_FAILED');
  });

  test('the global rate limit answers 429 RATE_LIMITED with Retry-After', async () => {
    const limited = await createTestApp({ RATE_LIMIT_MAX: '2' });
    try {
      for (let i = 0; i < 2; i++) {
        assert.equal((await limited.app.inject({ method: 'GET', url: '/api/' })).statusCode, 200);
      }
      const r = await limited.app.inject({ method: 'GET', url: '/api/' });
      assert.equal(r.statusCode, 429);
      envelope(r.json(), 'RATE_LIMITED');
      assert.ok(r.headers['retry-after']);
      assert.equal(
        (await limited.app.inject({ method: 'GET', url: '/api/health' })).statusCode,
        200,
        'probes exempt',
      );
      const withQuery = await limited.app.inject({ method: 'GET', url: '/api/ready?probe=k8s' });
      assert.equal(withQuery.statusCode, 200, 'probes exempt whatever the query string');
    } finally {
      await limited.close();
    }
  });
});
