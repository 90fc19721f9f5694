import type { Executor } from '../../db/database.js';
import { toEvent } from './event-row.js';
import type { Event } from './schemas.js';

/** The events that mirror reservations in booking calendars. */
export function createMirrorsRepo(db: Executor) {
  return {
    /** Whether any event mirrors a reservation. */
    async anyMirror(): Promise<boolean> {
      const row = await db
        .selectFrom('events')
        .select('id')
        .where('bookingReservationId', 'is not', null)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The events mirroring these reservations in booking calendars (one at most each). */
    async mirrorsOf(reservationIds: readonly number[]): Promise<Array<Event & { reservationId: number }>> {
      if (reservationIds.length === 0) return [];
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('bookingReservationId', 'in', [...reservationIds])
        .execute();
      return rows.map((row) => ({ ...toEvent(row), reservationId: row.bookingReservationId! }));
    },
  };
}

export type MirrorsRepo = ReturnType<typeof createMirrorsRepo>;
