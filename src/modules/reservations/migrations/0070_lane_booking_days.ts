import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * Round robin's count kept as it goes (assignment.ts, round-robin-counts.ts; DECISIONS.md
 * "Teams"). Counting a lane's bookings of the last 30 days row by row cost a pool booking
 * milliseconds once thousands were booked; this keeps, per lane, type and UTC day the row was
 * made, how many of its rows keep their time for good (a keeping status and no `expires_at`:
 * confirmed bookings, and their parts). The count adds the whole days of the window from here,
 * the window's first (partial) day and the rows whose `expires_at` is still ahead from the
 * reservations' indexes, so it answers what counting every row answered.
 *
 * - `writer`: the PostgreSQL backend that wrote the change (0 on SQLite), so two concurrent
 *   transactions never update one counter row: a counter shared by a lane's day would queue
 *   every booking of the lane behind the one before until its commit, and crossing
 *   collective cancels could deadlock. A row counts only its writer's changes (it may go below
 *   0: a cancel by one writer of a booking another counted); the sum over writers is the count.
 * - Triggers on reservations keep it: an insert, a delete, and an update of the lane, type,
 *   status, expiry or made time (a move, a cancel, a hold paid or lapsed, a part following its
 *   reservation) take the old row out and put the new one in.
 * - PostgreSQL: `reservations_round_robin_counts` answers the count, taking the type's turn
 *   first when asked (a pool booking's insert picks its lane with it, book.ts).
 */
export function laneBookingDays(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('reservation_lane_days')
        .addColumn('resource_id', 'integer', (c) => c.notNull())
        .addColumn('resource_type_id', 'integer', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('writer', 'integer', (c) => c.notNull())
        .addColumn('bookings', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('reservation_lane_days_pk', [
          'resource_id',
          'resource_type_id',
          'day',
          'writer',
        ])
        .execute();
      if (dialect === 'sqlite') await sqliteTriggers(db);
      else await pgTriggers(db);
      await sql
        .raw(`insert into reservation_lane_days (resource_id, resource_type_id, day, writer, bookings)
          select resource_id, resource_type_id, ${dayOf('', dialect)}, 0, count(*) from reservations
          where ${counted('', dialect)} group by resource_id, resource_type_id, ${dayOf('', dialect)}`)
        .execute(db);
      if (dialect === 'postgres') await pgCounts(db);
    },
  };
}

/** The statuses that keep a reservation's time (reservation-time.ts `KEEPING_STATUSES`). */
const KEEPING = `('held', 'pending_payment', 'confirmed')`;

/** Whether the row (`old.`, `new.` or none) counts for good: on a lane, of a type, keeping its time with no expiry. */
const counted = (row: string, dialect: Dialect) =>
  `(${row}resource_id is not null and ${row}resource_type_id is not null and ${row}status in ${KEEPING} and ${row}expires_at is null)${dialect === 'sqlite' ? '' : ' is true'}`;

/** The UTC day the row was made, as YYYY-MM-DD text. */
const dayOf = (row: string, dialect: Dialect) =>
  dialect === 'sqlite'
    ? `substr(${row}created_at, 1, 10)`
    : `to_char(${row}created_at at time zone 'UTC', 'YYYY-MM-DD')`;

/** Whether an update touched what the count keys or judges by. */
const changed = (moved: string) =>
  ['resource_id', 'resource_type_id', 'status', 'expires_at', 'created_at']
    .map((col) => `old.${col} ${moved} new.${col}`)
    .join(' or ');

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const add = `insert into reservation_lane_days (resource_id, resource_type_id, day, writer, bookings)
    select new.resource_id, new.resource_type_id, ${dayOf('new.', 'sqlite')}, 0, 1 where ${counted('new.', 'sqlite')}
    on conflict (resource_id, resource_type_id, day, writer) do update set bookings = bookings + 1;`;
  const take = `update reservation_lane_days set bookings = bookings - 1
    where ${counted('old.', 'sqlite')} and resource_id = old.resource_id and resource_type_id = old.resource_type_id
      and day = ${dayOf('old.', 'sqlite')} and writer = 0;`;
  await sql
    .raw(`create trigger reservation_lane_days_insert after insert on reservations for each row
      when ${counted('new.', 'sqlite')} begin ${add} end`)
    .execute(db);
  await sql
    .raw(`create trigger reservation_lane_days_update after update on reservations for each row
      when (${counted('old.', 'sqlite')} or ${counted('new.', 'sqlite')}) and (${changed('is not')})
      begin ${take} ${add} end`)
    .execute(db);
  await sql
    .raw(`create trigger reservation_lane_days_delete after delete on reservations for each row
      when ${counted('old.', 'sqlite')} begin ${take} end`)
    .execute(db);
}

async function pgTriggers(db: Kysely<unknown>): Promise<void> {
  const change = (row: string, by: number) => `
    insert into reservation_lane_days (resource_id, resource_type_id, day, writer, bookings)
    values (${row}resource_id, ${row}resource_type_id, ${dayOf(row, 'postgres')}, pg_backend_pid(), ${by})
    on conflict (resource_id, resource_type_id, day, writer)
    do update set bookings = reservation_lane_days.bookings + excluded.bookings;`;
  await sql
    .raw(`create function reservation_lane_days_follow() returns trigger language plpgsql
      set search_path from current as $$
      begin
        if tg_op <> 'INSERT' and ${counted('old.', 'postgres')} then ${change('old.', -1)} end if;
        if tg_op <> 'DELETE' and ${counted('new.', 'postgres')} then ${change('new.', 1)} end if;
        return null;
      end $$`)
    .execute(db);
  const run = 'execute function reservation_lane_days_follow()';
  await sql
    .raw(`create trigger reservation_lane_days_insert after insert on reservations for each row
      when (${counted('new.', 'postgres')}) ${run}`)
    .execute(db);
  await sql
    .raw(`create trigger reservation_lane_days_update after update on reservations for each row
      when ((${counted('old.', 'postgres')} or ${counted('new.', 'postgres')}) and (${changed('is distinct from')})) ${run}`)
    .execute(db);
  await sql
    .raw(`create trigger reservation_lane_days_delete after delete on reservations for each row
      when (${counted('old.', 'postgres')}) ${run}`)
    .execute(db);
}

/**
 * PostgreSQL: round robin's count of `lane_ids` (round-robin-counts.ts spells the same for
 * SQLite): per lane, the bookings of the type keeping their time at `at_time` made since `since`,
 * and when the latest was made. With `take_turn`, the type's advisory lock first (held to the
 * end of the transaction): being volatile, each statement here reads with a snapshot taken
 * after it was granted, so it counts every booking committed by the turns before.
 */
async function pgCounts(db: Kysely<unknown>): Promise<void> {
  const keeps = `r.status in ${KEEPING} and (r.expires_at is null or r.expires_at > at_time)`;
  await sql
    .raw(`create function reservations_round_robin_counts(
        take_turn boolean, lock_key integer, type_id integer, lane_ids integer[], since timestamptz, at_time timestamptz)
      returns table (lane_id integer, bookings bigint, last_made timestamptz)
      language plpgsql volatile set search_path from current as $$
      declare
        first_day text := to_char(since at time zone 'UTC', 'YYYY-MM-DD');
        second_day timestamptz := (date_trunc('day', since at time zone 'UTC') + interval '1 day') at time zone 'UTC';
      begin
        if take_turn then perform pg_advisory_xact_lock(lock_key, type_id); end if;
        return query
        select l.id,
          coalesce((select sum(d.bookings) from reservation_lane_days d
             where d.resource_id = l.id and d.resource_type_id = type_id and d.day > first_day), 0)::bigint
          + (select count(*) from reservations r
             where r.resource_id = l.id and r.resource_type_id = type_id and r.created_at >= since
               and r.created_at < second_day and r.status in ${KEEPING} and r.expires_at is null)
          + (select count(*) from reservations r
             where r.resource_id = l.id and r.expires_at > at_time and r.status in ${KEEPING}
               and r.resource_type_id = type_id and r.created_at >= since),
          (select r.created_at from reservations r
             where r.resource_id = l.id and r.resource_type_id = type_id and r.created_at >= since and ${keeps}
             order by r.created_at desc limit 1)
        from unnest(lane_ids) as l(id);
      end $$`)
    .execute(db);
}
