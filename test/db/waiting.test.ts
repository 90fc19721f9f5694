import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createDatabase } from '../../src/db/database.js';

// `waiting()`: how many queries wait for a connection now, the database's sign of load that the
// mail drain gives way to (src/lib/give-way.ts).

const PG_URL = process.env.TEST_DATABASE_URL;

describe('queries waiting for a connection', () => {
  test("SQLite's one connection runs on the request thread: none ever waits", async () => {
    const db = createDatabase('sqlite::memory:');
    try {
      const running = Promise.all([sql`select 1`.execute(db.kysely), sql`select 2`.execute(db.kysely)]);
      assert.equal(db.waiting(), 0);
      await running;
      assert.equal(db.waiting(), 0);
    } finally {
      await db.close();
    }
  });

  if (PG_URL)
    test('PostgreSQL: the queries behind a full pool, and none once it has room', async () => {
      const db = createDatabase(PG_URL, { poolSize: 1 });
      try {
        await sql`select 1`.execute(db.kysely);
        assert.equal(db.waiting(), 0, 'an idle pool');
        const holding = sql`select pg_sleep(0.2)`.execute(db.kysely);
        const queued = [sql`select 1`.execute(db.kysely), sql`select 2`.execute(db.kysely)];
        // Kysely asks the pool for a connection a few turns after the call.
        for (let turn = 0; db.waiting() < 2 && turn < 100; turn += 1) await new Promise(setImmediate);
        // At least the two behind the one running.
        assert.ok(db.waiting() >= 2, `${db.waiting()} waiting`);
        await Promise.all([holding, ...queued]);
        assert.equal(db.waiting(), 0);
      } finally {
        await db.close();
      }
    });
});
