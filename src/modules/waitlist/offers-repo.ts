import type { Executor } from '../../db/database.js';
import type { EntryRow } from './repo.js';

/** What the offer consumer reads and claims: who waits for a type, and the offers it links to holds. */
export function createOffersRepo(db: Executor) {
  return {
    /** The waiting entries of a type whose time is still ahead at `now`, oldest first. */
    async waitingOfType(resourceTypeId: number, now: string): Promise<EntryRow[]> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('resourceTypeId', '=', resourceTypeId)
        .where('status', '=', 'waiting')
        .where('startTime', '>', now)
        .orderBy('id')
        .execute();
    },

    /** Every type with a waiting entry ahead at `now` (the periodic pass: capacity raised, missed events). */
    async typesWaiting(now: string): Promise<Array<{ organisationId: number; resourceTypeId: number }>> {
      return db
        .selectFrom('waitlistEntries')
        .select(['organisationId', 'resourceTypeId'])
        .where('status', '=', 'waiting')
        .where('startTime', '>', now)
        .groupBy(['organisationId', 'resourceTypeId'])
        .execute();
    },

    /**
     * Claims a waiting entry for an offer (waiting -> offered, no reservation yet): of two
     * runs, one claims it. An offer whose hold could not be made goes back to waiting.
     */
    async claimOffer(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('waitlistEntries')
        .set({ status: 'offered', offerReservationId: null, offerExpiresAt: null, updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async unclaimOffer(id: number, now: string): Promise<void> {
      await db
        .updateTable('waitlistEntries')
        .set({ status: 'waiting', updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'offered')
        .where('offerReservationId', 'is', null)
        .execute();
    },

    /** Offers claimed but never linked to their hold (a run that stopped in between), claimed before `before`. */
    async unlinkedOffers(before: string): Promise<EntryRow[]> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('status', '=', 'offered')
        .where('offerReservationId', 'is', null)
        .where('updatedAt', '<', before)
        .execute();
    },

    async linkOffer(
      executor: Executor,
      id: number,
      offer: { reservationId: number; expiresAt: string | null },
      now: string,
    ): Promise<EntryRow | undefined> {
      return executor
        .updateTable('waitlistEntries')
        .set({ offerReservationId: offer.reservationId, offerExpiresAt: offer.expiresAt, updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'offered')
        .returningAll()
        .executeTakeFirst();
    },

    async byOffer(reservationId: number): Promise<EntryRow | undefined> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('offerReservationId', '=', reservationId)
        .executeTakeFirst();
    },

    /** Whether any entry waits or holds an offer (none: the consumer has nothing to settle or offer). */
    async anyOpen(): Promise<boolean> {
      const row = await db
        .selectFrom('waitlistEntries')
        .select('id')
        .where('status', 'in', ['waiting', 'offered'])
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
