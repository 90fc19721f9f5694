import type { Db, Executor } from '../../db/database.js';
import type { NewDelivery } from './tables.js';

/** The dispatcher's row in webhook_dispatch_positions. */
const DISPATCHER = 'dispatcher';

/** The dispatcher's position in the outbox, and the deliveries it makes with each move of it. */
export function createDispatchRepo(db: Db) {
  let positionMade = false;
  return {
    /** The dispatcher's position (null: nothing dispatched yet), its row made on first use. */
    async readPosition(now: string): Promise<{ position: string | null; anyActiveEndpoint: boolean }> {
      // The row is made once per process (a write on every run would cost every run a write).
      if (!positionMade) {
        await db.kysely
          .insertInto('webhookDispatchPositions')
          .values({ consumer: DISPATCHER, lastEventId: null, updatedAt: now })
          .onConflict((oc) => oc.column('consumer').doNothing())
          .execute();
        positionMade = true;
      }
      // With whether any endpoint is active, in the same round trip: each waits for a pooled
      // connection behind the requests of the moment.
      const row = await db.kysely
        .selectFrom('webhookDispatchPositions')
        .select((eb) => [
          'lastEventId',
          eb
            .exists(eb.selectFrom('webhookEndpoints').select('id').where('status', '=', 'active'))
            .as('anyActive'),
        ])
        .where('consumer', '=', DISPATCHER)
        .executeTakeFirstOrThrow();
      return { position: row.lastEventId, anyActiveEndpoint: Boolean(row.anyActive) };
    },

    /**
     * Moves the position from `from` to `to` if it is still at `from` (compare and set):
     * false when another dispatcher moved it first. On PostgreSQL a concurrent one waits
     * for this row and then finds it moved.
     */
    async advancePosition(trx: Executor, from: string | null, to: string, now: string): Promise<boolean> {
      const result = await trx
        .updateTable('webhookDispatchPositions')
        .set({ lastEventId: to, updatedAt: now })
        .where('consumer', '=', DISPATCHER)
        .where('lastEventId', from === null ? 'is' : '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Inserts deliveries; one that exists for its (endpoint, event) is left as it is. */
    async insertDeliveries(executor: Executor, rows: readonly NewDelivery[]): Promise<void> {
      if (rows.length === 0) return;
      await executor
        .insertInto('webhookDeliveries')
        .values([...rows])
        .onConflict((oc) => oc.columns(['endpointId', 'eventId']).doNothing())
        .execute();
    },
  };
}

export type DispatchRepo = ReturnType<typeof createDispatchRepo>;
