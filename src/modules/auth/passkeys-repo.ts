import type { Executor } from '../../db/database.js';
import type { PasskeyChallengePurpose } from './security-tables.js';

const passkeyColumns = ['id', 'name', 'createdAt', 'lastUsedAt'] as const;

/** Kysely queries of passkeys and the WebAuthn challenges handed out for them. */
export function createPasskeyRepo(db: Executor) {
  return {
    async insert(values: {
      userId: number;
      credentialId: string;
      publicKey: string;
      counter: number;
      transports: string[] | undefined;
      name: string | null;
      now: string;
    }) {
      const { now, transports, ...passkey } = values;
      return db
        .insertInto('passkeys')
        .values({ ...passkey, transports: transports ? JSON.stringify(transports) : null, createdAt: now })
        .returning(passkeyColumns)
        .executeTakeFirstOrThrow();
    },

    listForUser(userId: number) {
      return db
        .selectFrom('passkeys')
        .select(passkeyColumns)
        .where('userId', '=', userId)
        .orderBy('id')
        .execute();
    },

    /** The credential ids of a person's passkeys (a registration excludes them). */
    async credentialIdsOf(userId: number) {
      const rows = await db
        .selectFrom('passkeys')
        .select(['credentialId', 'transports'])
        .where('userId', '=', userId)
        .execute();
      return rows.map((row) => ({
        id: row.credentialId,
        transports: row.transports ? (JSON.parse(row.transports) as string[]) : undefined,
      }));
    },

    findByCredentialId(credentialId: string) {
      return db
        .selectFrom('passkeys')
        .select(['id', 'userId', 'credentialId', 'publicKey', 'counter', 'transports'])
        .where('credentialId', '=', credentialId)
        .executeTakeFirst();
    },

    /** Deletes one of the person's passkeys; answers whether there was one. */
    async delete(userId: number, id: number): Promise<boolean> {
      const result = await db
        .deleteFrom('passkeys')
        .where('id', '=', id)
        .where('userId', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    /**
     * Records a sign-in: the new counter, if the stored one is still the one checked against
     * (of two assertions with one counter value, one wins).
     */
    async recordUse(id: number, checkedCounter: number, newCounter: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('passkeys')
        .set({ counter: newCounter, lastUsedAt: now })
        .where('id', '=', id)
        .where('counter', '=', checkedCounter)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Hands out a challenge; expired ones go at the same time. */
    async insertChallenge(values: {
      challenge: string;
      purpose: PasskeyChallengePurpose;
      userId: number | null;
      expiresAt: string;
      now: string;
    }): Promise<void> {
      const { now, ...challenge } = values;
      await db.deleteFrom('passkeyChallenges').where('expiresAt', '<=', now).execute();
      await db
        .insertInto('passkeyChallenges')
        .values({ ...challenge, createdAt: now })
        .execute();
    },

    /**
     * Takes a live challenge for `purpose` (and, for a registration, of `userId`) out of the
     * store: true once, false for one unknown, used, expired or another person's.
     */
    async consumeChallenge(
      challenge: string,
      purpose: PasskeyChallengePurpose,
      userId: number | null,
      now: string,
    ): Promise<boolean> {
      const result = await db
        .deleteFrom('passkeyChallenges')
        .where('challenge', '=', challenge)
        .where('purpose', '=', purpose)
        .where('expiresAt', '>', now)
        .$if(userId !== null, (qb) => qb.where('userId', '=', userId))
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
