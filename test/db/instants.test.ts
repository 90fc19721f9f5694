import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { minutesAfter } from '../../src/db/instants.js';
import { createTestDatabase } from '../helpers/app.js';

// A booking's read bounds its reservations by instants computed in SQL from its type's
// minutes: they must compare with stored instants exactly as the ISO text would.
let db: Db;
let drop: () => Promise<void>;
before(async () => {
  ({ db, drop } = await createTestDatabase());
});
after(() => drop());

test('minutesAfter answers the stored form of the instant, either way, across days and months', async () => {
  const cases: Array<[string, number]> = [
    ['2026-12-07T12:00:00.000Z', 15],
    ['2026-12-07T12:00:00.000Z', -45],
    ['2026-12-07T00:10:30.123Z', -11],
    ['2026-02-28T23:50:59.999Z', 20],
    ['2026-12-31T23:30:00.000Z', 44_640],
    ['2026-12-07T12:00:00.000Z', 0],
  ];
  for (const [instant, minutes] of cases) {
    const { rows } = await sql<{
      shifted: string;
    }>`select ${minutesAfter(db.dialect, instant, sql<number>`${sql.lit(minutes)}`)} as shifted`.execute(
      db.kysely,
    );
    assert.equal(
      rows[0]!.shifted,
      new Date(Date.parse(instant) + minutes * 60_000).toISOString(),
      `${instant} ${minutes}`,
    );
  }
});
