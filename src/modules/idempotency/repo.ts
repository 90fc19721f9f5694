import type { Executor } from '../../db/database.js';
import type { IdempotencyStore, StoredKey } from '../../http/idempotency.js';

/** The idempotency_keys table: the store behind the `Idempotency-Key` hooks of src/http/idempotency.ts. */
export function createIdempotencyRepo(db: Executor) {
  return {
    /**
     * Claims (scope, key) with one INSERT; the unique constraint makes exactly one of two
     * concurrent claims win. Answers the new row's id, or null when the key is taken.
     */
    async claim(input: {
      scope: string;
      key: string;
      userId: number | null;
      fingerprint: string;
      now: string;
    }): Promise<number | null> {
      const row = await db
        .insertInto('idempotencyKeys')
        .values({
          scope: input.scope,
          key: input.key,
          userId: input.userId,
          fingerprint: input.fingerprint,
          createdAt: input.now,
        })
        .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row?.id ?? null;
    },

    async find(scope: string, key: string): Promise<StoredKey | undefined> {
      return db
        .selectFrom('idempotencyKeys')
        .select(['id', 'fingerprint', 'statusCode', 'responseBody', 'createdAt'])
        .where('scope', '=', scope)
        .where('key', '=', key)
        .executeTakeFirst();
    },

    /** Frees (scope, key) when its row is expired, or a claim that never finished is stale. */
    async releaseExpired(scope: string, key: string, expiredBefore: string, staleBefore: string) {
      await db
        .deleteFrom('idempotencyKeys')
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where((eb) =>
          eb.or([
            eb('createdAt', '<', expiredBefore),
            eb.and([eb('statusCode', 'is', null), eb('createdAt', '<', staleBefore)]),
          ]),
        )
        .execute();
    },

    async complete(id: number, statusCode: number, responseBody: string, now: string) {
      await db
        .updateTable('idempotencyKeys')
        .set({ statusCode, responseBody, completedAt: now })
        .where('id', '=', id)
        .execute();
    },

    /** Drops a claim whose request failed (5xx), so a retry runs again. */
    async release(id: number) {
      await db.deleteFrom('idempotencyKeys').where('id', '=', id).where('statusCode', 'is', null).execute();
    },

    /** Deletes every row older than `before`; answers how many. */
    async purge(before: string): Promise<number> {
      const result = await db
        .deleteFrom('idempotencyKeys')
        .where('createdAt', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  } satisfies IdempotencyStore;
}
