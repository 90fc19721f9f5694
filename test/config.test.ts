import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';

describe('configuration', () => {
  test('development defaults need no variables', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/reservations.db');
    assert.equal(config.publicUrl, 'http://localhost:3000');
    assert.equal(config.frontendUrl, 'http://localhost:3000');
    assert.deepEqual(config.corsOrigins, ['http://localhost:3000']);
    assert.equal(config.oauthAccessTokenTtl, 3600);
    assert.equal(config.oauthRefreshTokenTtl, 7_776_000);
  });

  test('a bad value names the variable', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), /^Error: Invalid environment variable PORT/);
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
    assert.throws(() => loadConfig({ FEATURE_FLAGS: '{"a": 1}' }), /FEATURE_FLAGS/);
    assert.throws(() => loadConfig({ ENCRYPTION_KEY: 'short' }), /ENCRYPTION_KEY/);
    assert.throws(
      () => loadConfig({ JWT_SECRET: 'x'.repeat(40), OAUTH_JWT_SECRET: 'x'.repeat(40) }),
      /OAUTH_JWT_SECRET/,
    );
  });

  test('production refuses the development secrets', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /JWT_SECRET: must be set in production/);
    const secrets = {
      NODE_ENV: 'production',
      JWT_SECRET: 'a'.repeat(40),
      OAUTH_JWT_SECRET: 'b'.repeat(40),
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    };
    assert.throws(() => loadConfig(secrets), /PAYMENT_API_BASE/);
    const config = loadConfig({
      ...secrets,
      PAYMENT_API_BASE: 'https://pay.example',
      PAYMENT_SECRET_KEY: 'sk_live',
      PAYMENT_WEBHOOK_SECRET: 'whsec_live_0123456789',
    });
    assert.equal(config.env, 'production');
  });
});
