// PostgreSQL's sequencer (outbox migrations 0062 and 0078) gives the events waiting for a
// position the next ones, in id order, in one run. Its statement must read each waiting event
// once whatever the planner believes: with statistics taken while none waited (autovacuum's usual
// view of the outbox) a nested loop ran the numbered subquery, `nextval` included, once per
// waiting event, a burst of 1,000 costing a million index reads and sequence values.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.js';
import { createTestDatabase } from '../../helpers/app.js';

// SQLite has no sequencer: its ids are the order.
if (process.env.TEST_DATABASE_URL)
  describe('the outbox sequencer on PostgreSQL', () => {
    const WAITING = 400;
    let db: Db;
    let drop: () => Promise<void>;
    before(async () => {
      ({ db, drop } = await createTestDatabase());
    });
    after(() => drop());

    test('a burst of waiting events gets consecutive positions in one run, with statistics of an empty queue', async () => {
      await sql`analyze outbox_events`.execute(db.kysely);
      const occurredAt = new Date().toISOString();
      await db.kysely
        .insertInto('outboxEvents')
        .values(
          Array.from({ length: WAITING }, () => ({
            type: 'reservation.created' as const,
            occurredAt,
            organisationId: null,
            userId: null,
            data: '{}',
          })),
        )
        .execute();
      await sql`select outbox_sequence(1, 10000)`.execute(db.kysely);
      const positioned = await db.kysely
        .selectFrom('outboxEvents')
        .select(['id', 'position'])
        .orderBy('id')
        .execute();
      assert.equal(positioned.length, WAITING);
      const positions = positioned.map((row) => Number(row.position));
      // In id order, one sequence value each: the subquery that draws them ran once.
      assert.deepEqual(
        positions,
        positions.map((_, i) => positions[0]! + i),
      );
    });
  });
