import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { toReservation } from './reservation-row.js';
import type { Reservation } from './schemas.js';
import type { Attendance } from './tables.js';

/** How many of one customer's reservations were marked each way. */
export interface AttendanceCounts {
  attended: number;
  noShow: number;
}

/** Attendance: marking it, and counting it per customer. */
export function createAttendanceRepo(db: Executor) {
  return {
    /**
     * Marks a confirmed reservation of the organisation that started by `now`; undefined
     * when there is none such (another status, not started yet, or not there).
     */
    async markAttendance(
      organisationId: number,
      id: number,
      attendance: Attendance,
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ attendance, updatedAt: now })
        .where('id', '=', id)
        .where('organisationId', '=', organisationId)
        .where('partOf', 'is', null)
        .where('status', '=', sql.lit('confirmed'))
        .where('startTime', '<=', now)
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row);
    },

    /** The organisation's reservations of a customer email marked attended and no_show. */
    async attendanceCounts(organisationId: number, customerEmail: string): Promise<AttendanceCounts> {
      const rows = await db
        .selectFrom('reservations')
        .select(['attendance', (eb) => eb.fn.countAll<number | string>().as('count')])
        .where('organisationId', '=', organisationId)
        .where('customerEmail', '=', customerEmail)
        .where('attendance', 'is not', null)
        .groupBy('attendance')
        .execute();
      const count = (marked: Attendance) => Number(rows.find((r) => r.attendance === marked)?.count ?? 0);
      return { attended: count('attended'), noShow: count('no_show') };
    },
  };
}

export type AttendanceRepo = ReturnType<typeof createAttendanceRepo>;
