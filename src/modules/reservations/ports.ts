import type { Executor } from '../../db/database.js';
import { keepsTimeAt, lapsedAt } from './reservation-time.js';

/** The statuses that keep a reservation's time (a hold or an unpaid booking only until it expires). */
export { KEEPING_STATUSES } from './reservation-time.js';

/**
 * What other modules read of the reservations table, each a query to compose into theirs (as a
 * subquery: `.as(...)`, `in`, `exists`), so their read stays one statement.
 */

/** The holds and unpaid bookings past their expiry at `now` (ISO) not yet marked expired. */
export function lapsedReservationsAt(db: Executor, now: string) {
  return reservationTimes(db).where(lapsedAt(now));
}

/** The reservations keeping their time at `now` (ISO): what takes a lane's time. */
export function reservationsKeepingTimeAt(db: Executor, now: string) {
  return reservationTimes(db).where(keepsTimeAt(now));
}

/** Every reservation's lane, time and status: no customer data. */
export function reservationTimes(db: Executor) {
  return db
    .selectFrom('reservations')
    .select([
      'reservations.id',
      'reservations.resourceId',
      'reservations.status',
      'reservations.startTime',
      'reservations.endTime',
      'reservations.expiresAt',
      'reservations.updatedAt',
    ]);
}

/** The stored manage links (hash and sealed token) of the reservations whose link has a sealed token. */
export function sealedManageLinks(db: Executor, reservationIds: readonly number[]) {
  return db
    .selectFrom('reservations')
    .select(['reservations.id', 'reservations.manageTokenHash', 'reservations.manageTokenSealed'])
    .where('reservations.id', 'in', reservationIds)
    .where('reservations.manageTokenSealed', 'is not', null);
}

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
    .where('partOf', 'is', null)
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
