import type { Executor } from '../../db/database.js';
import { keepsTimeAt } from '../../db/reservation-time.js';

// What other modules may read and write of reservations, as query fragments and small
// statements on their executor (the table's name stays in this folder).

/** How many of the organisation's reservations have not ended and keep their time at `now`. */
export async function countFutureReservations(
  db: Executor,
  organisationId: number,
  now: string,
): Promise<number> {
  const row = await db
    .selectFrom('reservations')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('organisationId', '=', organisationId)
    .where(keepsTimeAt(now))
    .where('endTime', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
