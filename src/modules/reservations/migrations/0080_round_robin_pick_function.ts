import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * PostgreSQL: round robin's pick (round-robin-insert.ts) as a function that books a list of
 * waiting bookings of a type in order, each its own insert seeing the ones before it, in the
 * caller's one statement (docs/decisions.md "Round-robin picks that wait for a turn go
 * together in one statement"). Each booking, one element of `picks`: `row` (the reservation's
 * columns by name, but its lane, hold end and assignment), `lanes` (the offered lanes in order:
 * `lane_id`, `lane_updated_at` as read, `blocked_until`, `weight`), `since` (the window's start)
 * and `reason` (the assignment reason's opening). Its insert takes the type's turn through
 * `reservations_round_robin_counts` (migration 0070; the same transaction's lock again after the
 * first), ranks the lanes by fewest bookings per weight, then booked longest ago, then as
 * offered, and books the first whose row is as read, unless its time is taken. Answers one row
 * per booking, in order: the reservation, or nulls when none was booked.
 */
export function roundRobinPickFunction(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql.raw(PICK).execute(db);
    },
  };
}

const PICK = `create function reservations_round_robin_pick(lock_key integer, picks jsonb)
  returns setof reservations
  language plpgsql volatile set search_path from current as $$
  declare
    m jsonb;
    r reservations;
    picked reservations;
  begin
    for m in select value from jsonb_array_elements(picks) loop
      r := jsonb_populate_record(null::reservations, m->'row');
      picked := null;
      insert into reservations (organisation_id, resource_type_id, resource_id, status, start_time, end_time,
        blocked_until, customer_name, customer_email, customer_phone, customer_info, notes, price_amount,
        price_currency, source, created_by_user_id, rules_overridden_by_user_id, expires_at, manage_token_hash,
        manage_token_sealed, public_client_hash, series_id, assignment_strategy, assignment_reason, resource_ids,
        part_of, reference, created_at, updated_at)
      select r.organisation_id, r.resource_type_id, o.lane_id, r.status, r.start_time, r.end_time, o.blocked_until,
        r.customer_name, r.customer_email, r.customer_phone, r.customer_info, r.notes, r.price_amount,
        r.price_currency, r.source, r.created_by_user_id, r.rules_overridden_by_user_id, r.expires_at,
        r.manage_token_hash, r.manage_token_sealed, r.public_client_hash, r.series_id, 'round_robin',
        (m->>'reason') || o.bookings || ', weight ' || o.weight || ')', null, null, r.reference, r.created_at,
        r.updated_at
      -- Ranked in full (the sort runs the count, so the turn is taken) before the first lane's
      -- row is share-locked: the turn, then the lane, in every writer's order.
      from (
        select o.*, c.bookings, c.last_made
        from (select (e.lane->>'lane_id')::integer as lane_id, (e.lane->>'lane_updated_at')::timestamptz
                as lane_updated_at, (e.lane->>'blocked_until')::timestamptz as blocked_until,
                (e.lane->>'weight')::integer as weight, e.n
              from jsonb_array_elements(m->'lanes') with ordinality as e(lane, n)) o
        join reservations_round_robin_counts(true, lock_key, r.resource_type_id,
            array(select (x->>'lane_id')::integer from jsonb_array_elements(m->'lanes') x),
            (m->>'since')::timestamptz, r.created_at) c
          on c.lane_id = o.lane_id
        order by c.bookings::float8 / o.weight, c.last_made nulls first, o.n
      ) o
      where exists (select 1 from resources l where l.id = o.lane_id and l.updated_at = o.lane_updated_at for share)
      limit 1
      on conflict on constraint reservations_no_overlap do nothing
      returning * into picked;
      return next picked;
    end loop;
  end $$`;
