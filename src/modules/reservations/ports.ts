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

/** Whether any of these resources holds a reservation that has not ended and keeps its time at `now`. */
export async function holdsFutureReservations(
  db: Executor,
  resourceIds: number[],
  now: string,
): Promise<boolean> {
  if (resourceIds.length === 0) return false;
  const row = await db
    .selectFrom('reservations')
    .select('id')
    .where('resourceId', 'in', resourceIds)
    .where(keepsTimeAt(now))
    .where('endTime', '>', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Moves every reservation (past ones too) from one resource to another, through `db` (the
 * catalogue's transaction that seeds or drops the lanes).
 */
export async function moveReservations(
  db: Executor,
  fromResourceId: number,
  toResourceId: number,
  now: string,
): Promise<void> {
  await db
    .updateTable('reservations')
    .set({ resourceId: toResourceId, updatedAt: now })
    .where('resourceId', '=', fromResourceId)
    .execute();
}
