import { InvalidCursorError } from '../../db/keyset.js';
import { safeEqual } from '../../lib/crypto.js';
import { invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ReservationsContext } from './context.js';
import type { ReservationsService } from './service.js';

/** Reading reservations: a member's list and one of them, and what the public routes look up. */
export function createReads({
  organisations,
  repo,
  findOrThrow,
}: ReservationsContext): Pick<
  ReservationsService,
  'list' | 'get' | 'findIn' | 'livePublicHolds' | 'findByManageTokenHash'
> {
  return {
    async list(actor, query) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      try {
        return await repo.list(organisationId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError)
          throw invalidField('cursor', 'is not a cursor this list gave out');
        throw error;
      }
    },
    async get(actor, id) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      return findOrThrow(organisationId, id);
    },
    findIn: (organisationId, id) => repo.find(organisationId, id),
    livePublicHolds: (organisationId, by) => repo.livePublicHolds(organisationId, by, nowIso()),
    async findByManageTokenHash(tokenHash) {
      const found = await repo.findByManageTokenHash(tokenHash);
      if (!found || !safeEqual(found.manageTokenHash, tokenHash)) return undefined;
      return { organisationId: found.organisationId, reservation: found.reservation };
    },
  };
}
