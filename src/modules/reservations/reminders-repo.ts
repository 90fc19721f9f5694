import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { typesWithReminders } from '../resource-types/ports.js';

/** A reservation whose reminder may be due: its start and when it was booked. */
export interface ReminderCandidate {
  id: number;
  startTime: string;
  createdAt: string;
}

/** The reminders of one `minutesBefore` over the types that send it, starting within (after, until]. */
export interface ReminderWindow {
  minutesBefore: number;
  typeIds: number[];
  after: string;
  until: string;
}

/** Reminder mails: what is due, and the row that sends one. */
export function createReminderRepo(db: Executor, dialect: Dialect) {
  /** Confirmed reservations of the window's types starting in it, the window's reminder not yet sent for their start. */
  const dueIn = (window: ReminderWindow) =>
    db
      .selectFrom('reservations')
      .where('reservations.resourceTypeId', 'in', window.typeIds)
      .where('reservations.status', '=', sql.lit('confirmed'))
      .where('reservations.startTime', '>', window.after)
      .where('reservations.startTime', '<=', window.until)
      .where('reservations.partOf', 'is', null)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('reservationReminders as sent')
              .select(sql.lit(1).as('one'))
              .whereRef('sent.reservationId', '=', 'reservations.id')
              .where('sent.minutesBefore', '=', window.minutesBefore)
              .whereRef('sent.startTime', '=', 'reservations.startTime'),
          ),
        ),
      );

  return {
    /** Every type with reminders, with its reminders' minutes. */
    async reminderTypes(): Promise<Array<{ id: number; minutesBefore: number[] }>> {
      const rows = await typesWithReminders(db).execute();
      return rows.map((row) => ({
        id: row.id,
        minutesBefore: (JSON.parse(row.reminders) as Array<{ minutesBefore: number }>).map(
          (r) => r.minutesBefore,
        ),
      }));
    },

    /** What `window` may owe a reminder (see `dueIn`). */
    candidates(window: ReminderWindow): Promise<ReminderCandidate[]> {
      return dueIn(window)
        .select(['reservations.id', 'reservations.startTime', 'reservations.createdAt'])
        .execute();
    },

    /**
     * Sends the window's reminder of `ids` that are still due, re-checked in the statement:
     * one row each (its insert trigger writes `reservation.reminder_sent`, which the mail
     * consumer mails). A row another instance wrote first stands and this one writes none.
     * Answers the reservations this call sent for.
     */
    async send(window: ReminderWindow, ids: number[], now: string): Promise<number[]> {
      const rows = await db
        .insertInto('reservationReminders')
        .columns(['reservationId', 'minutesBefore', 'startTime', 'sentAt'])
        .expression(
          dueIn(window)
            .where('reservations.id', 'in', ids)
            .select([
              'reservations.id',
              sql.lit(window.minutesBefore).as('minutesBefore'),
              'reservations.startTime',
              // A parameter in a select list is text to PostgreSQL: cast for the timestamptz column.
              (dialect === 'postgres' ? sql<string>`cast(${now} as timestamptz)` : sql<string>`${now}`).as(
                'sentAt',
              ),
            ]),
        )
        .onConflict((oc) => oc.columns(['reservationId', 'minutesBefore', 'startTime']).doNothing())
        .returning('reservationId')
        .execute();
      return rows.map((row) => row.reservationId);
    },
  };
}

export type ReminderRepo = ReturnType<typeof createReminderRepo>;
