import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkClusterEnv } from '../../tools/cluster/cluster.js';
import { haproxyConfig } from '../../tools/cluster/haproxy.js';

// `npm run cluster`'s checks and balancer config; test/cluster/*.cluster.ts run the real thing.
describe('npm run cluster', () => {
  test('needs PostgreSQL and Redis, and says which variable is wrong', () => {
    const redis = { REDIS_URL: 'redis://127.0.0.1:6379' };
    assert.throws(
      () => checkClusterEnv({ ...redis, DATABASE_URL: 'sqlite:./data/reservations.db' }),
      /A cluster needs PostgreSQL: set DATABASE_URL to a postgres:\/\/ URL \(it is "sqlite:\.\.\."; instances cannot share a SQLite file\)/,
    );
    assert.throws(() => checkClusterEnv(redis), /DATABASE_URL .*unset, so SQLite/);
    assert.throws(
      () => checkClusterEnv({ DATABASE_URL: 'postgres://app@db/reservations' }),
      /A cluster needs Redis: set REDIS_URL/,
    );
    assert.doesNotThrow(() =>
      checkClusterEnv({ ...redis, DATABASE_URL: 'postgresql://app@db/reservations' }),
    );
  });

  test('HAProxy checks /api/ready and retries only what is safe to retry', () => {
    const config = haproxyConfig(
      8080,
      [
        { name: 'i1', port: 4001 },
        { name: 'i2', port: 4002 },
      ],
      '/tmp/x.sock',
    );
    assert.match(config, /bind 127\.0\.0\.1:8080/);
    assert.match(config, /option httpchk GET \/api\/ready/);
    assert.match(config, /retry-on conn-failure empty-response/);
    assert.match(config, /http-request disable-l7-retry unless METH_GET/);
    assert.match(config, /server i1 127\.0\.0\.1:4001\n {2}server i2 127\.0\.0\.1:4002/);
  });
});
