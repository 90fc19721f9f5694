import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * A lane claims a batch of an endpoint's due deliveries at once and sends them one after
 * another, so a claim's round trip is paid once per batch, not once per delivery. What
 * counts toward an endpoint's 2 attempts in flight is now the lanes holding a claim, not
 * the leased rows: every row of one batch carries the lane's `claim_slot`, and the claim
 * counts the distinct slots whose lease runs. A row leased before this migration (a lease of
 * an older instance during a rolling upgrade) has no slot and counts on its own.
 *
 * PostgreSQL: `webhook_claim_batch` replaces `webhook_claim_next` (migration 0061), still one
 * round trip with the endpoint's row locked inside it, so claims for one endpoint take turns.
 * The batch's ids are an array (`= any(array(...))`), probed by primary key: as `in (...)` the
 * function's cached generic plan joined the whole table, a tenth of the claims taking 300 ms.
 */
export function webhookClaimBatches(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_deliveries').addColumn('claim_slot', 'text').execute();
      if (dialect !== 'postgres') return;
      await sql
        .raw('drop function webhook_claim_next(integer, timestamptz, timestamptz, integer)')
        .execute(db);
      await sql
        .raw(`create function webhook_claim_batch(
            p_endpoint integer, p_now timestamptz, p_lease timestamptz, p_slot text,
            p_in_flight_max integer, p_batch integer
          ) returns setof webhook_deliveries language plpgsql as $$
          declare
            endpoint_status text;
          begin
            select status into endpoint_status from webhook_endpoints where id = p_endpoint for no key update;
            if not found then return; end if;
            if (select count(distinct coalesce(claim_slot, id::text)) from webhook_deliveries
                where endpoint_id = p_endpoint and claimed_until > p_now) >= p_in_flight_max then
              return;
            end if;
            -- Paused or disabled: only a test ping goes.
            return query update webhook_deliveries set claimed_until = p_lease, claim_slot = p_slot
              where id = any(array(
                select id from webhook_deliveries
                where endpoint_id = p_endpoint and status = 'pending' and next_attempt_at <= p_now
                  and (claimed_until is null or claimed_until <= p_now)
                  and (endpoint_status = 'active' or event_type = 'webhook.test')
                order by next_attempt_at, id limit p_batch))
              and status = 'pending' and (claimed_until is null or claimed_until <= p_now)
              returning *;
          end $$`)
        .execute(db);
    },
  };
}
