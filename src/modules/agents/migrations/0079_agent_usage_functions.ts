import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * PostgreSQL: counting and giving back a call's uses of the daily limits in one statement each
 * (docs/decisions.md "Daily limits on PostgreSQL: one statement while the window is locked").
 * Counting in a transaction of five or six round trips held the agent's window row locked
 * through all of them, so one agent's concurrent calls took turns through every round trip;
 * a function holds it for one statement and its commit. Each does what daily-limits.ts does
 * on SQLite, statement for statement, with the instants it is given (`p_since` is `p_now`
 * less 24 hours): the window row made when missing and locked, moved forward by the uses that
 * left it (or the whole window summed when it is new, over a day old, or ahead of `p_since`),
 * every use or none, and on a refusal the kind, its limit and when enough of the window frees
 * (the oldest uses leave first). A refusal deletes the uses it inserted before it, as the
 * rollback does there.
 */
export function agentUsageFunctions(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql.raw(RESERVE).execute(db);
      await sql.raw(RELEASE).execute(db);
    },
  };
}

const RESERVE = `create or replace function agent_usage_reserve(
    p_agent integer, p_kinds text[], p_amounts integer[], p_limits integer[],
    p_since timestamptz, p_now timestamptz)
  returns table (reserved_ids integer[], refused_kind text, refused_limit integer, frees_at timestamptz)
  language plpgsql as $$
  declare
    w_since timestamptz;
    w_booking bigint;
    w_cancellation bigint;
    w_spend bigint;
    gone_booking bigint;
    gone_cancellation bigint;
    gone_spend bigint;
    used bigint;
    new_id integer;
    inserted integer[] := '{}';
    use_row record;
  begin
    insert into agent_usage_windows as w (agent_id) values (p_agent)
      on conflict (agent_id) do update set since = w.since
      returning w.since, w.booking_used, w.cancellation_used, w.spend_used
      into w_since, w_booking, w_cancellation, w_spend;
    if w_since is not null and w_since <= p_since and w_since >= p_since - interval '24 hours' then
      select coalesce(sum(u.amount) filter (where u.kind = 'booking'), 0),
             coalesce(sum(u.amount) filter (where u.kind = 'cancellation'), 0),
             coalesce(sum(u.amount) filter (where u.kind = 'spend'), 0)
        into gone_booking, gone_cancellation, gone_spend
        from agent_usage u where u.agent_id = p_agent and u.created_at > w_since and u.created_at <= p_since;
      w_booking := w_booking - gone_booking;
      w_cancellation := w_cancellation - gone_cancellation;
      w_spend := w_spend - gone_spend;
    else
      select coalesce(sum(u.amount) filter (where u.kind = 'booking'), 0),
             coalesce(sum(u.amount) filter (where u.kind = 'cancellation'), 0),
             coalesce(sum(u.amount) filter (where u.kind = 'spend'), 0)
        into w_booking, w_cancellation, w_spend
        from agent_usage u where u.agent_id = p_agent and u.created_at > p_since;
    end if;
    for i in 1 .. coalesce(array_length(p_kinds, 1), 0) loop
      used := case p_kinds[i] when 'booking' then w_booking when 'cancellation' then w_cancellation else w_spend end;
      if used + p_amounts[i] > p_limits[i] then
        frees_at := null;
        for use_row in select u.amount, u.created_at from agent_usage u
            where u.agent_id = p_agent and u.kind = p_kinds[i] and u.created_at > p_since
            order by u.created_at, u.id loop
          used := used - use_row.amount;
          if used + p_amounts[i] <= p_limits[i] then
            frees_at := use_row.created_at + interval '24 hours';
            exit;
          end if;
        end loop;
        delete from agent_usage u where u.id = any(inserted);
        return query select null::integer[], p_kinds[i], p_limits[i], frees_at;
        return;
      end if;
      insert into agent_usage (agent_id, kind, amount, created_at)
        values (p_agent, p_kinds[i], p_amounts[i], p_now) returning id into new_id;
      inserted := inserted || new_id;
      case p_kinds[i]
        when 'booking' then w_booking := w_booking + p_amounts[i];
        when 'cancellation' then w_cancellation := w_cancellation + p_amounts[i];
        else w_spend := w_spend + p_amounts[i];
      end case;
    end loop;
    update agent_usage_windows set since = p_since, booking_used = w_booking,
        cancellation_used = w_cancellation, spend_used = w_spend
      where agent_id = p_agent;
    return query select inserted, null::text, null::integer, null::timestamptz;
  end $$`;

const RELEASE = `create or replace function agent_usage_release(p_agent integer, p_ids integer[]) returns void
  language plpgsql as $$
  declare
    w_since timestamptz;
  begin
    insert into agent_usage_windows as w (agent_id) values (p_agent)
      on conflict (agent_id) do update set since = w.since
      returning w.since into w_since;
    if w_since is null then
      -- Before the first count there is nothing to take off: that count sums the window.
      delete from agent_usage u where u.agent_id = p_agent and u.id = any(p_ids);
      return;
    end if;
    with released as (
      delete from agent_usage u where u.agent_id = p_agent and u.id = any(p_ids)
        returning u.kind, u.amount, u.created_at)
    update agent_usage_windows w set
        booking_used = w.booking_used - r.booking,
        cancellation_used = w.cancellation_used - r.cancellation,
        spend_used = w.spend_used - r.spend
      from (select coalesce(sum(amount) filter (where kind = 'booking'), 0) as booking,
                   coalesce(sum(amount) filter (where kind = 'cancellation'), 0) as cancellation,
                   coalesce(sum(amount) filter (where kind = 'spend'), 0) as spend
            from released where created_at > w_since) r
      where w.agent_id = p_agent;
  end $$`;
