import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * PostgreSQL: an endpoint's next delivery claimed in one round trip. The claim locks the
 * endpoint's row, so claims for one endpoint take turns, then counts its running leases in a
 * statement of its own: a PL/pgSQL statement reads a fresh snapshot (READ COMMITTED), so it
 * sees the leases of the claims that held the lock before it. As a client's transaction this
 * was four round trips with the lock held across three of them, which capped an endpoint's
 * two lanes at about 170 deliveries a second. SQLite's claim is one statement already.
 */
export function webhookClaimFunction(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql
        .raw(`create function webhook_claim_next(
            p_endpoint integer, p_now timestamptz, p_lease timestamptz, p_in_flight_max integer
          ) returns setof webhook_deliveries language plpgsql as $$
          declare
            endpoint_status text;
          begin
            select status into endpoint_status from webhook_endpoints where id = p_endpoint for no key update;
            if not found then return; end if;
            if (select count(*) from webhook_deliveries
                where endpoint_id = p_endpoint and claimed_until > p_now) >= p_in_flight_max then
              return;
            end if;
            -- Paused or disabled: only a test ping goes.
            return query update webhook_deliveries set claimed_until = p_lease
              where id = (
                select id from webhook_deliveries
                where endpoint_id = p_endpoint and status = 'pending' and next_attempt_at <= p_now
                  and (claimed_until is null or claimed_until <= p_now)
                  and (endpoint_status = 'active' or event_type = 'webhook.test')
                order by next_attempt_at, id limit 1)
              and status = 'pending' and (claimed_until is null or claimed_until <= p_now)
              returning *;
          end $$`)
        .execute(db);
    },
  };
}
