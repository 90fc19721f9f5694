import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ReservationsContext } from './context.js';
import type { ReservationsService } from './service.js';

/**
 * Attendance (DECISIONS.md "Booking everywhere"): staff mark whether the customer of a
 * confirmed reservation came, once it started. A mark may be changed to the other (a slip
 * corrected); marking `no_show` writes `reservation.no_show` (the reservation triggers,
 * migration 0075), once per change to it.
 */
export function createAttendance({
  organisations,
  repo,
  findOrThrow,
}: ReservationsContext): Pick<ReservationsService, 'markAttendance' | 'attendanceCounts'> {
  return {
    async markAttendance(actor, id, { status }) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'markAttendance' });
      const marked = await repo.markAttendance(organisationId, id, status, nowIso());
      if (marked) return marked;
      const found = await findOrThrow(organisationId, id);
      if (found.status !== 'confirmed')
        throw conflict(
          'INVALID_TRANSITION',
          `Attendance is marked on a confirmed reservation; this one is ${found.status}`,
        );
      throw conflict(
        'INVALID_TRANSITION',
        `Attendance can be marked once the reservation has started, at ${found.startTime}`,
      );
    },
    async attendanceCounts(actor, customerEmail) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      return { customerEmail, ...(await repo.attendanceCounts(organisationId, customerEmail)) };
    },
  };
}
