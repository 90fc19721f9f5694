import type { Executor } from '../../db/database.js';
import type { AccountLinkPurpose } from './tables.js';

/** A mailed link as found by its token's hash. */
export interface StoredLink {
  id: number;
  userId: number;
  purpose: AccountLinkPurpose;
  email: string;
  expiresAt: string;
  usedAt: string | null;
  /** Whether a newer link of the same user and purpose exists (this one is superseded). */
  superseded: boolean;
}

/** Mailed account links (`account_links`): only the SHA-256 of each token is kept. */
export function createLinkRepo(db: Executor) {
  return {
    async insert(values: {
      userId: number;
      purpose: AccountLinkPurpose;
      tokenHash: string;
      email: string;
      expiresAt: string;
      now: string;
    }): Promise<void> {
      const { now, ...link } = values;
      await db
        .insertInto('accountLinks')
        .values({ ...link, createdAt: now })
        .execute();
    },

    async findByHash(tokenHash: string): Promise<StoredLink | undefined> {
      const row = await db
        .selectFrom('accountLinks as link')
        .select((eb) => [
          'link.id',
          'link.userId',
          'link.purpose',
          'link.email',
          'link.expiresAt',
          'link.usedAt',
          eb
            .exists(
              eb
                .selectFrom('accountLinks as newer')
                .select('newer.id')
                .whereRef('newer.userId', '=', 'link.userId')
                .whereRef('newer.purpose', '=', 'link.purpose')
                .whereRef('newer.id', '>', 'link.id'),
            )
            .as('superseded'),
        ])
        .where('link.tokenHash', '=', tokenHash)
        .executeTakeFirst();
      return row && { ...row, superseded: Boolean(row.superseded) };
    },

    /** Uses a link once: answers whether this call used it (two uses at once: one wins). */
    async markUsed(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('accountLinks')
        .set({ usedAt: now })
        .where('id', '=', id)
        .where('usedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Forgets a user's links that lapsed before `before` (kept a while to answer 410 rather than 400). */
    async purgeLapsed(userId: number, before: string): Promise<void> {
      await db
        .deleteFrom('accountLinks')
        .where('userId', '=', userId)
        .where('expiresAt', '<', before)
        .execute();
    },
  };
}
