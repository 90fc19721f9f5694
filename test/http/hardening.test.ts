import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** Inputs found by probing: each must get a 4xx envelope, never a 500 or a dropped connection. */
describe('hardening', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  for (const kind of ['ct', 'csp']) {
    test(`a 5,000-deep JSON body to /api/security/reports/${kind} is a 400 envelope`, async () => {
      const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      for (const payload of [deep, `[${deep}]`, `{"csp-report":${deep}}`]) {
        const response = await t.app.inject({
          method: 'POST',
          url: `/api/security/reports/${kind}`,
          headers: { 'content-type': 'application/json' },
          payload,
        });
        assert.equal(response.statusCode, 400, response.body.slice(0, 200));
        assert.equal(response.json().error.code, 'VALIDATION_FAILED');
      }
    });
  }

  test('a 50 MiB body announced by Content-Length is refused with 413 before it is read', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/monitoring/frontend-errors',
          headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      // Only the first bytes: the answer must come without the rest of the body.
      req.write('{"source":"x"');
    });
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.body).error.code, 'PAYLOAD_TOO_LARGE');
  });

  test('GET /api/ names the service and its own version', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/' });
    assert.equal(response.statusCode, 200);
    const { version } = await import('../../package.json', { with: { type: 'json' } }).then((m) => m.default);
    assert.deepEqual(
      { name: response.json().name, version: response.json().version },
      { name: 'reservation-service', version },
    );
  });
});
