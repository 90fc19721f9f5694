import type { Executor } from '../../db/database.js';
import { keepsTimeAt, lapsedAt } from '../../db/reservation-time.js';

/**
 * What other modules read of the reservations table, each a query to compose into theirs (as a
 * subquery: `.as(...)`, `in`, `exists`), so their read stays one statement.
 */

/** The holds and unpaid bookings past their expiry at `now` (ISO) not yet marked expired. */
export const lapsedReservationsAt = (db: Executor, now: string) => reservationTimes(db).where(lapsedAt(now));

/** The reservations keeping their time at `now` (ISO): what takes a lane's time. */
export const reservationsKeepingTimeAt = (db: Executor, now: string) =>
  reservationTimes(db).where(keepsTimeAt(now));

/** Every reservation's lane, time and status: no customer data. */
export const reservationTimes = (db: Executor) =>
  db
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

/** The stored manage links (hash and sealed token) of the reservations whose link has a sealed token. */
export function sealedManageLinks(db: Executor, reservationIds: readonly number[]) {
  return db
    .selectFrom('reservations')
    .select(['reservations.id', 'reservations.manageTokenHash', 'reservations.manageTokenSealed'])
    .where('reservations.id', 'in', reservationIds)
    .where('reservations.manageTokenSealed', 'is not', null);
}
