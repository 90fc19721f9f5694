import type { Executor } from '../../db/database.js';

/** Kysely queries of two-factor sign-in: the secrets, recovery codes and login challenges. */
export function createTwoFactorRepo(db: Executor) {
  return {
    findSecrets(userId: number) {
      return db
        .selectFrom('twoFactorSecrets')
        .select(['secretSealed', 'pendingSecretSealed', 'lastUsedStep'])
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    /** Keeps a new secret waiting for its first code (replacing any earlier one). */
    async setPending(userId: number, pendingSecretSealed: string, now: string): Promise<void> {
      await db
        .insertInto('twoFactorSecrets')
        .values({ userId, pendingSecretSealed, updatedAt: now })
        .onConflict((conflict) =>
          conflict.column('userId').doUpdateSet({ pendingSecretSealed, updatedAt: now }),
        )
        .execute();
    },

    /**
     * Makes the waiting secret the one in use, with `step` as used, if it is still the one
     * the code was checked against; answers whether it did (a concurrent setup loses).
     */
    async enable(userId: number, pendingSecretSealed: string, step: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('twoFactorSecrets')
        .set({
          secretSealed: pendingSecretSealed,
          pendingSecretSealed: null,
          lastUsedStep: step,
          enabledAt: now,
          updatedAt: now,
        })
        .where('userId', '=', userId)
        .where('pendingSecretSealed', '=', pendingSecretSealed)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await db
        .updateTable('users')
        .set({ twoFactorEnabled: true, updatedAt: now })
        .where('id', '=', userId)
        .execute();
      return true;
    },

    /**
     * Records `step` as used unless it (or a later one) already was: a conditional update, so
     * of two requests with one code on two instances exactly one wins.
     */
    async claimStep(userId: number, step: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('twoFactorSecrets')
        .set({ lastUsedStep: step, updatedAt: now })
        .where('userId', '=', userId)
        .where('secretSealed', 'is not', null)
        .where((eb) => eb.or([eb('lastUsedStep', 'is', null), eb('lastUsedStep', '<', step)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Two-factor off: the secret, recovery codes and open challenges go. */
    async disable(userId: number, now: string): Promise<void> {
      await db.deleteFrom('twoFactorSecrets').where('userId', '=', userId).execute();
      await db.deleteFrom('twoFactorRecoveryCodes').where('userId', '=', userId).execute();
      await db.deleteFrom('twoFactorChallenges').where('userId', '=', userId).execute();
      await db
        .updateTable('users')
        .set({ twoFactorEnabled: false, updatedAt: now })
        .where('id', '=', userId)
        .execute();
    },

    async replaceRecoveryCodes(userId: number, codeHashes: string[], now: string): Promise<void> {
      await db.deleteFrom('twoFactorRecoveryCodes').where('userId', '=', userId).execute();
      await db
        .insertInto('twoFactorRecoveryCodes')
        .values(codeHashes.map((codeHash) => ({ userId, codeHash, createdAt: now })))
        .execute();
    },

    /** Marks an unused recovery code used; answers whether this call did. */
    async claimRecoveryCode(userId: number, codeHash: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('twoFactorRecoveryCodes')
        .set({ usedAt: now })
        .where('userId', '=', userId)
        .where('codeHash', '=', codeHash)
        .where('usedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Starts a login's second step; the person's expired challenges go at the same time. */
    async insertChallenge(values: { userId: number; tokenHash: string; expiresAt: string; now: string }) {
      await db
        .deleteFrom('twoFactorChallenges')
        .where('userId', '=', values.userId)
        .where('expiresAt', '<=', values.now)
        .execute();
      await db
        .insertInto('twoFactorChallenges')
        .values({
          userId: values.userId,
          tokenHash: values.tokenHash,
          expiresAt: values.expiresAt,
          createdAt: values.now,
        })
        .execute();
    },

    findChallenge(tokenHash: string) {
      return db
        .selectFrom('twoFactorChallenges')
        .innerJoin('users', 'users.id', 'twoFactorChallenges.userId')
        .select([
          'twoFactorChallenges.id',
          'twoFactorChallenges.expiresAt',
          'users.id as userId',
          'users.email',
        ])
        .where('twoFactorChallenges.tokenHash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** Ends a challenge; answers whether this call did (of two concurrent second steps, one signs in). */
    async deleteChallenge(id: number): Promise<boolean> {
      const result = await db.deleteFrom('twoFactorChallenges').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
