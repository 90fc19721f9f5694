import type { Executor } from '../../db/database.js';

const CONSUMER = 'offers';

/** The offer consumer's lease and its position in the outbox. */
export function createConsumerRepo(db: Executor) {
  return {
    /** Takes the lease until `until` when nobody holds it at `now`; answers the position, or undefined. */
    async claimLease(
      claim: string,
      now: string,
      until: string,
    ): Promise<{ position: string | null } | undefined> {
      return db
        .updateTable('waitlistConsumer')
        .set({ claim, claimedUntil: until })
        .where('name', '=', CONSUMER)
        .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', now)]))
        .returning('position')
        .executeTakeFirst();
    },

    /** Moves the position to `to` while nobody holds the lease (an idle consumer skipping events); one statement. */
    async skipTo(to: string, now: string): Promise<void> {
      await db
        .updateTable('waitlistConsumer')
        .set({ position: to })
        .where('name', '=', CONSUMER)
        .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', now)]))
        .where((eb) => eb.or([eb('position', 'is', null), eb('position', '!=', to)]))
        .execute();
    },

    /** Moves the position on, while `claim` still holds the lease (extending it to `until`). */
    async advance(claim: string, to: string, until: string): Promise<boolean> {
      const result = await db
        .updateTable('waitlistConsumer')
        .set({ position: to, claimedUntil: until })
        .where('name', '=', CONSUMER)
        .where('claim', '=', claim)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async releaseLease(claim: string): Promise<void> {
      await db
        .updateTable('waitlistConsumer')
        .set({ claim: null, claimedUntil: null })
        .where('name', '=', CONSUMER)
        .where('claim', '=', claim)
        .execute();
    },
  };
}
