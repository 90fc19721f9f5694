import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Deliveries are sent per endpoint, at most 2 in flight each (DECISIONS.md "What the review
 * found, decided"), so every read is by endpoint:
 *
 * - `webhook_deliveries_lane_idx`: an endpoint's next due delivery, past a backlog that is
 *   waiting for its retry time.
 * - `webhook_deliveries_leased_idx`: an endpoint's attempts in flight (their lease is set
 *   only while one runs), counted before each claim.
 * - `webhook_deliveries_test_due_idx`: a test ping waiting for a paused or disabled endpoint
 *   (it is sent whatever the status; the rest of such an endpoint's queue waits).
 *
 * The global due index (status, next_attempt_at) read by the old batch claim goes.
 */
export function webhookDeliveryLanes(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const pending = () => sql<boolean>`status = 'pending'`;
      await db.schema
        .createIndex('webhook_deliveries_lane_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'next_attempt_at', 'id'])
        .where(pending())
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_leased_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'claimed_until'])
        .where(sql.ref('claimed_until'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_test_due_idx')
        .on('webhook_deliveries')
        .column('endpoint_id')
        .where(sql<boolean>`status = 'pending' and event_type = 'webhook.test'`)
        .execute();
      await db.schema.dropIndex('webhook_deliveries_due_idx').execute();
    },
  };
}
