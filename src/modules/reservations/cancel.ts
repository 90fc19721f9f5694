import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ReservationsContext } from './context.js';
import { changeable } from './member-access.js';
import { KEEPING_STATUSES } from './reservation-time.js';
import { assertBookingRules, overrideBy } from './rules.js';
import type { Reservation } from './schemas.js';
import type { ReservationsService } from './service.js';

/** `cancelFound` as ReservationsService documents it. */
async function cancelFound(
  ctx: ReservationsContext,
  organisationId: number,
  found: Reservation,
  overriding: number | null,
): Promise<Reservation> {
  const { payment } = ctx;
  let rulesOverriddenByUserId: number | null = null;
  const booked = found.status === 'confirmed' || found.status === 'pending_payment';
  if (booked && found.resourceTypeId !== null) {
    const type = await ctx.resourceTypes.findStored(ctx.db.kysely, organisationId, found.resourceTypeId);
    rulesOverriddenByUserId = await assertBookingRules(
      { action: 'cancel', start: Date.parse(found.startTime) },
      type?.bookingRules ?? null,
      { overrideBy: overriding },
    );
  }
  // A paid reservation is refunded in full first: a failed refund changes nothing.
  const refunded = await payment.refundBeforeCancel(found);
  const cancelled = await ctx.repo.transition(
    found.id,
    KEEPING_STATUSES,
    'cancelled',
    nowIso(),
    rulesOverriddenByUserId,
  );
  if (cancelled) return payment.afterCancel(cancelled, refunded);
  // Changed meanwhile; a refund made for it is still recorded.
  if (refunded) await payment.afterCancel(found, refunded);
  const now = await ctx.findOrThrow(organisationId, found.id);
  if (now.status === 'cancelled') throw conflict('CONFLICT', 'This reservation is already cancelled');
  throw conflict('INVALID_TRANSITION', `A ${now.status} reservation cannot be cancelled`);
}

/** Cancelling one reservation: a member's, or for a caller already entitled to it. */
export function createCancel(ctx: ReservationsContext): Pick<ReservationsService, 'cancel' | 'cancelFound'> {
  return {
    async cancel(actor, id, input = {}) {
      const { organisationId, role, found } = await changeable(ctx, actor, id, 'cancel');
      return cancelFound(ctx, organisationId, found, overrideBy(actor.userId, role, input.overrideRules));
    },
    cancelFound: (organisationId, found, overriding) => cancelFound(ctx, organisationId, found, overriding),
  };
}
