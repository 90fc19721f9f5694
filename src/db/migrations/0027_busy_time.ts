import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { raiseVersions } from './0013_availability_versions.js';
import type { Columns } from './columns.js';

/** The types whose answers an event row's busy time changes: its calendar owner's blocking resources'. */
function blockedTypes(row: string, yes: string): string {
  return `select distinct r.resource_type_id as t from resources r
        join calendars c on c.owner_id = r.managed_by_id
       where c.id = ${row}.calendar_id and r.block_on_manager_calendars = ${yes}`;
}

/** PostgreSQL's trigger function on events, raising versions with `raise` (0044 shards it). */
export function busyBumpFunction(raise: (types: string) => string): string {
  const bump = (row: string) => raise(blockedTypes(row, 'true'));
  return `create or replace function availability_bump_events() returns trigger language plpgsql
            set search_path from current as $$
            begin
              if tg_op <> 'INSERT' then ${bump('old')}; end if;
              if tg_op <> 'DELETE' then ${bump('new')}; end if;
              return null;
            end $$`;
}

/**
 * Busy time (issue 26).
 *
 * - `events.transparency`: `opaque` (busy, the default of every existing event) or
 *   `transparent` (free). `events.booking_reservation_id`: set on the event a booking
 *   calendar mirrors a reservation with; the busy read leaves those out (the reservation
 *   itself already takes the time), and the unique index is the mirror's map
 *   reservation -> event.
 * - `resources.block_on_manager_calendars` and `resources.booking_calendar_id`.
 * - Busy events of a manager change the availability answers of the types their blocking
 *   resources belong to: a trigger on events raises those types' versions (0013's
 *   `availability_versions`), so the answer cache never shows time a new meeting took.
 *   Only columns the busy read looks at raise it (a renamed meeting does not).
 * - Indexes: the busy read (opaque, unmirrored events of a calendar by time) and the
 *   trigger's lookup of the blocking resources of a manager.
 */
export function busyTime(c: Columns, dialect: Dialect): Migration {
  const pg = dialect === 'postgres';
  const yes = pg ? 'true' : '1';
  const differs = pg ? 'is distinct from' : 'is not';
  const watched = [
    'calendar_id',
    'start_time',
    'end_time',
    'all_day',
    'timezone',
    'recurrence',
    'occurs_until',
    'transparency',
    'booking_reservation_id',
  ];
  const when = watched.map((col) => `old.${col} ${differs} new.${col}`).join(' or ');
  const bump = (row: string) => raiseVersions(blockedTypes(row, yes));
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('events')
        .addColumn('transparency', 'text', (col) => col.notNull().defaultTo('opaque'))
        .execute();
      await db.schema.alterTable('events').addColumn('booking_reservation_id', 'integer').execute();
      await db.schema
        .createIndex('events_booking_reservation_idx')
        .on('events')
        .column('booking_reservation_id')
        .unique()
        .where(sql.ref('booking_reservation_id'), 'is not', null)
        .execute();
      await sql
        .raw(`create index events_busy_idx on events (calendar_id, start_time, occurs_until)
          where transparency = 'opaque' and booking_reservation_id is null`)
        .execute(db);
      await db.schema
        .alterTable('resources')
        .addColumn('block_on_manager_calendars', c.bool, (col) =>
          col.notNull().defaultTo(sql.raw(pg ? 'false' : '0')),
        )
        .execute();
      await db.schema
        .alterTable('resources')
        .addColumn('booking_calendar_id', 'integer', (col) =>
          col.references('calendars.id').onDelete('set null'),
        )
        .execute();
      await sql
        .raw(`create index resources_blocking_manager_idx on resources (managed_by_id)
          where block_on_manager_calendars = ${yes}`)
        .execute(db);

      if (pg) {
        await sql.raw(busyBumpFunction(raiseVersions)).execute(db);
        for (const event of ['insert', 'update', 'delete']) {
          const condition = event === 'update' ? `when (${when})` : '';
          await sql
            .raw(`create constraint trigger availability_events_${event}
              after ${event} on events deferrable initially deferred
              for each row ${condition} execute function availability_bump_events()`)
            .execute(db);
        }
        return;
      }
      for (const [event, row] of [
        ['insert', 'NEW'],
        ['update', 'OLD'],
        ['update', 'NEW'],
        ['delete', 'OLD'],
      ] as const) {
        const condition = event === 'update' ? `when ${when}` : '';
        await sql
          .raw(`create trigger availability_events_${event}_${row.toLowerCase()}
            after ${event} on events for each row ${condition}
            begin ${bump(row)}; end`)
          .execute(db);
      }
    },
  };
}
