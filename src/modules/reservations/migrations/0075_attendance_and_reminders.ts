import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';
import {
  EVENT_COLUMNS,
  pgReservationTriggers,
  RESERVATION_COLUMNS,
  reservationEventsFunction,
  sqliteReservationTriggers,
  type TriggerAdditions,
  WATCHED,
} from '../../outbox/migrations/0023_outbox.js';

/**
 * Attendance and reminders (DECISIONS.md "Booking everywhere").
 *
 * - `reservations.attendance`: null until staff mark it `attended` or `no_show` after the
 *   start; marking `no_show` writes `reservation.no_show` by the reservation triggers, as
 *   every other reservation event is written.
 * - `reservation_reminders`: one row per reminder mail, keyed by the reservation, the
 *   reminder's `minutes_before` and the start it was sent for. The sweep
 *   (reservations/reminders.ts) inserts it with `on conflict do nothing`, so however many
 *   instances insert it, one row stands; its insert trigger writes the
 *   `reservation.reminder_sent` event in that statement, which the mail consumer turns into
 *   the customer's mail once. A moved reservation has a new start, so its reminders are
 *   due again.
 * - The sweep reads the confirmed reservations of the types with reminders starting within
 *   a window: a partial index over confirmed rows by (type, start). A customer's attendance
 *   counts read a partial index over the marked rows.
 */
export function attendanceAndReminders(dialect: Dialect): Migration {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('attendance', 'text').execute();
      await db.schema
        .createTable('reservation_reminders')
        .addColumn('reservation_id', 'integer', (col) =>
          col.notNull().references('reservations.id').onDelete('cascade'),
        )
        .addColumn('minutes_before', 'integer', (col) => col.notNull())
        .addColumn('start_time', c.timestamp, (col) => col.notNull())
        .addColumn('sent_at', c.timestamp, (col) => col.notNull())
        .addPrimaryKeyConstraint('reservation_reminders_pkey', [
          'reservation_id',
          'minutes_before',
          'start_time',
        ])
        .execute();
      await db.schema
        .createIndex('reservations_confirmed_type_start_idx')
        .on('reservations')
        .columns(['resource_type_id', 'start_time'])
        .where(sql.ref('status'), '=', 'confirmed')
        .execute();
      // A customer's attendance counts (the console's reservation detail) read only marked rows.
      await db.schema
        .createIndex('reservations_attendance_idx')
        .on('reservations')
        .columns(['organisation_id', 'customer_email'])
        .where(sql.ref('attendance'), 'is not', null)
        .execute();
      await noShowEvents(db, dialect);
      await reminderEvents(db, dialect);
    },
  };
}

/** The SQLite triggers' columns: those of migration 0067, and attendance. */
const EVENT_ROW_COLUMNS = [
  ...RESERVATION_COLUMNS,
  'reference',
  'assignment_strategy',
  'assignment_reason',
  'resource_ids',
  'attendance',
];

/** The reservation triggers of migration 0067 with `attendance` watched and `reservation.no_show`. */
async function noShowEvents(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const differs = dialect === 'postgres' ? 'is distinct from' : 'is not';
  const watched = [...WATCHED, 'resource_ids', 'attendance'];
  const additions: TriggerAdditions = {
    partsLeftOut: true,
    movedToo: `old.resource_ids ${differs} new.resource_ids`,
    updateRules: [
      {
        type: 'reservation.no_show',
        when: `new.attendance = 'no_show' and old.attendance ${differs} 'no_show'`,
      },
    ],
  };
  for (const trigger of ['outbox_reservations_insert', 'outbox_reservations_update'])
    await sql.raw(`drop trigger ${trigger}${dialect === 'postgres' ? ' on reservations' : ''}`).execute(db);
  if (dialect === 'sqlite') {
    await sqliteReservationTriggers(db, EVENT_ROW_COLUMNS, watched, additions);
    return;
  }
  await reservationEventsFunction(db, 'create or replace', PG_SNAPSHOT('new'), additions);
  await pgReservationTriggers(db, watched, additions);
}

/** PostgreSQL: a reservation row as an event stores it (migration 0067's snapshot). */
const PG_SNAPSHOT = (row: string) =>
  `jsonb_strip_nulls(to_jsonb(${row}) - 'manage_token_hash' - 'manage_token_sealed' - 'part_of')::text`;

/** A reminder's row writes `reservation.reminder_sent` with its reservation's row, as it is. */
async function reminderEvents(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const select = (snapshot: string) => `insert into outbox_events (${EVENT_COLUMNS})
    select 'reservation.reminder_sent', new.sent_at, r.organisation_id, r.created_by_user_id,
      'reservation_row', ${snapshot}
    from reservations r where r.id = new.reservation_id;`;
  if (dialect === 'sqlite') {
    const row = `json_object(${EVENT_ROW_COLUMNS.map((col) => `'${col}', r.${col}`).join(', ')})`;
    await sql
      .raw(`create trigger outbox_reservation_reminders after insert on reservation_reminders
        for each row begin ${select(row)} end`)
      .execute(db);
    return;
  }
  await sql
    .raw(`create function outbox_reservation_reminders() returns trigger language plpgsql
      set search_path from current as $$
      begin
        ${select(PG_SNAPSHOT('r'))}
        return null;
      end $$`)
    .execute(db);
  await sql
    .raw(`create trigger outbox_reservation_reminders after insert on reservation_reminders
      for each row execute function outbox_reservation_reminders()`)
    .execute(db);
}
