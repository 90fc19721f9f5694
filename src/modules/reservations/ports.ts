import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read of the reservations tables, as query fragments they
 * compose into their own statements (so a read stays one statement and the tables stay here).
 */

/** The stored manage links (hash and sealed token) of the reservations whose link has a sealed token. */
export function sealedManageLinks(db: Executor, reservationIds: readonly number[]) {
  return db
    .selectFrom('reservations')
    .select(['reservations.id', 'reservations.manageTokenHash', 'reservations.manageTokenSealed'])
    .where('reservations.id', 'in', reservationIds)
    .where('reservations.manageTokenSealed', 'is not', null);
}
