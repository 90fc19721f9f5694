import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startupWarnings } from '../src/server.js';

describe('startup warnings', () => {
  const emulator = { provider: 'smtp', url: 'smtp://127.0.0.1:2525', close: async () => {} };

  test('an emulator standing in for a provider is named', () => {
    assert.deepEqual(startupWarnings({ databaseReadUrl: undefined, redisUrl: undefined }, [emulator]), [
      {
        details: { provider: 'smtp', url: 'smtp://127.0.0.1:2525' },
        message: 'No smtp provider configured: running against the bundled emulator',
      },
    ]);
  });

  test("a replica without Redis: callers' own writes are not followed across instances", () => {
    const replica = 'postgres://replica/reservations';
    const warned = startupWarnings({ databaseReadUrl: replica, redisUrl: undefined }, []);
    assert.equal(warned.length, 1);
    assert.match(warned[0]!.message, /^DATABASE_READ_URL without REDIS_URL: /);
    assert.deepEqual(
      startupWarnings({ databaseReadUrl: replica, redisUrl: 'redis://127.0.0.1:6379' }, []),
      [],
    );
    assert.deepEqual(startupWarnings({ databaseReadUrl: undefined, redisUrl: undefined }, []), []);
  });
});
