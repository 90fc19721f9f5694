import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * PostgreSQL: counting and giving back calls' uses of the daily limits in one statement each
 * (docs/decisions.md "Daily limits on PostgreSQL: one statement while the window is locked").
 * Counting in a transaction of five or six round trips held the agent's window row locked
 * through all of them, so one agent's concurrent calls took turns through every round trip;
 * a function holds it for one statement and its commit. The counts that arrive while one is
 * on its way go together (src/db/turn-groups.ts), so `agent_usage_reserve_calls` takes a JSON
 * array of calls, each an array of uses `{kind, amount, limit}`, and counts each as
 * daily-limits.ts counts one on SQLite, after the calls before it, with the instants it is
 * given (`p_since` is `p_now` less 24 hours): the window row made when missing and locked,
 * moved forward by the uses that left it (or the whole window summed when it is new, over a
 * day old, or ahead of `p_since`), every use of a call or none, and on a refusal the kind, its
 * limit and when enough of the window frees (the oldest uses leave first); a count alone is a
 * list of one. `agent_usage_release` gives a call's uses back.
 */
export function agentUsageFunctions(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql.raw(RESERVE_CALLS).execute(db);
      await sql.raw(RELEASE).execute(db);
    },
  };
}

const RESERVE_CALLS = `create function agent_usage_reserve_calls(
    p_agent integer, p_calls jsonb, p_since timestamptz, p_now timestamptz)
  returns table (reserved_ids integer[], refused_kind text, refused_limit integer, frees_at timestamptz)
  language plpgsql as $$
  declare
    w_since timestamptz;
    w_booking bigint;
    w_cancellation bigint;
    w_spend bigint;
    c_booking bigint;
    c_cancellation bigint;
    c_spend bigint;
    gone_booking bigint;
    gone_cancellation bigint;
    gone_spend bigint;
    v_call jsonb;
    v_use jsonb;
    v_kind text;
    v_amount integer;
    v_limit integer;
    v_used bigint;
    v_id integer;
    v_inserted integer[];
    v_row record;
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
    for v_call in select value from jsonb_array_elements(p_calls) loop
      c_booking := w_booking;
      c_cancellation := w_cancellation;
      c_spend := w_spend;
      v_inserted := '{}';
      reserved_ids := null;
      refused_kind := null;
      refused_limit := null;
      frees_at := null;
      for v_use in select value from jsonb_array_elements(v_call) loop
        v_kind := v_use->>'kind';
        v_amount := (v_use->>'amount')::integer;
        v_limit := (v_use->>'limit')::integer;
        v_used := case v_kind when 'booking' then c_booking when 'cancellation' then c_cancellation else c_spend end;
        if v_used + v_amount > v_limit then
          refused_kind := v_kind;
          refused_limit := v_limit;
          for v_row in select u.amount, u.created_at from agent_usage u
              where u.agent_id = p_agent and u.kind = v_kind and u.created_at > p_since
              order by u.created_at, u.id loop
            v_used := v_used - v_row.amount;
            if v_used + v_amount <= v_limit then
              frees_at := v_row.created_at + interval '24 hours';
              exit;
            end if;
          end loop;
          exit;
        end if;
        insert into agent_usage (agent_id, kind, amount, created_at)
          values (p_agent, v_kind, v_amount, p_now) returning id into v_id;
        v_inserted := v_inserted || v_id;
        case v_kind
          when 'booking' then c_booking := c_booking + v_amount;
          when 'cancellation' then c_cancellation := c_cancellation + v_amount;
          else c_spend := c_spend + v_amount;
        end case;
      end loop;
      if refused_kind is null then
        reserved_ids := v_inserted;
        w_booking := c_booking;
        w_cancellation := c_cancellation;
        w_spend := c_spend;
      else
        -- Every use or none: the uses of the call counted before its refusal go.
        delete from agent_usage u where u.id = any(v_inserted);
      end if;
      return next;
    end loop;
    update agent_usage_windows set since = p_since, booking_used = w_booking,
        cancellation_used = w_cancellation, spend_used = w_spend
      where agent_id = p_agent;
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
