import type { Actor } from '../../lib/actor.js';
import { safeEqual } from '../../lib/crypto.js';
import { conflict, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { can } from '../../tenancy/roles.js';
import { recordOf, type WaitlistContext } from './context.js';
import type { EntryRow } from './repo.js';
import type { ListWaitlistQuery, WaitlistEntry } from './schemas.js';
import type { WaitlistService } from './service.js';

type Entries = Pick<WaitlistService, 'get' | 'list' | 'isOfferHold' | 'leave' | 'findByManageTokenHash'>;

/** Reading entries and leaving the waitlist, by a member, staff, or a customer's manage link. */
export function createEntries(ctx: WaitlistContext): Entries {
  const { db, repo, organisations, reservations } = ctx;

  /** An entry of the actor's organisation they may see: their own, or any for staff; 404 otherwise. */
  async function visible(actor: Actor, id: number) {
    const tenant = await organisations.requireTenant(actor, { can: 'book' });
    const row = await repo.find(tenant.organisationId, id);
    if (!row || (row.createdByUserId !== actor.userId && !can(tenant.role, 'cancelAnyReservation')))
      throw notFound('Waitlist entry');
    return row;
  }

  /**
   * Leaves the waitlist. An offer not yet taken is let go: its hold is released, and the
   * time goes to the next in line.
   */
  async function leaveFound(found: EntryRow): Promise<WaitlistEntry> {
    const left = await repo.transition(db.kysely, found.id, ['waiting', 'offered'], 'left', nowIso());
    if (!left) throw conflict('INVALID_TRANSITION', `A ${found.status} waitlist entry cannot be left`);
    if (found.status === 'offered' && found.offerReservationId !== null) {
      const offer = await reservations.findIn(found.organisationId, found.offerReservationId);
      if (offer?.status === 'held')
        await reservations.releaseHeld(found.organisationId, offer).catch(() => undefined);
    }
    return recordOf(ctx, left);
  }

  return {
    async get(actor: Actor, id: number): Promise<WaitlistEntry> {
      return recordOf(ctx, await visible(actor, id));
    },

    async list(actor: Actor, query: ListWaitlistQuery): Promise<{ items: WaitlistEntry[] }> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'cancelAnyReservation' });
      const rows = await repo.list(organisationId, query);
      return { items: await Promise.all(rows.map((row) => recordOf(ctx, row))) };
    },

    async isOfferHold(actor: Actor, reservationId: number): Promise<boolean> {
      const { organisationId } = await organisations.requireTenant(actor);
      return (await repo.findOffering(organisationId, reservationId)) !== undefined;
    },

    async leave(actor: Actor, id: number): Promise<WaitlistEntry> {
      return leaveFound(await visible(actor, id));
    },

    async findByManageTokenHash(tokenHash: string) {
      const row = await repo.findByManageTokenHash(tokenHash);
      if (!row?.manageTokenHash || !safeEqual(row.manageTokenHash, tokenHash)) return undefined;
      return {
        organisationId: row.organisationId,
        entry: await recordOf(ctx, row),
        leave: () => leaveFound(row),
      };
    },
  };
}
