import { nowIso } from '../../lib/time.js';
import type { ReservationsContext } from './context.js';
import type { Reservation } from './schemas.js';

/** The job that marks lapsed holds and unpaid bookings `expired`. */
export const RESERVATION_EXPIRY_JOB = 'reservations_expire_holds';
/** How often it runs (minutes): reads never wait for it, so it only brings statuses up to date. */
export const EXPIRY_EVERY_MINUTES = 1;
/** Rows one statement of the job marks; it repeats until a batch comes back short. */
const EXPIRY_BATCH = 500;

/** The expiry job's run (the service's `expireDue`). */
export function createExpiry({
  db,
  expireLapsed,
}: Pick<ReservationsContext, 'db' | 'expireLapsed'>): () => Promise<Reservation[]> {
  /** The job's run: batch after batch until none is left; answers what it marked. */
  async function expireDue(): Promise<Reservation[]> {
    const now = nowIso();
    const expired: Reservation[] = [];
    for (;;) {
      const batch = await expireLapsed(db.kysely, now, { limit: EXPIRY_BATCH });
      expired.push(...batch);
      if (batch.length < EXPIRY_BATCH) return expired;
    }
  }
  return expireDue;
}
