import type { Dialect, Executor } from '../../db/database.js';
import type { Plan } from '../auth/tables.js';

/**
 * What organisations read and write of people's accounts (`users`): the plan an owner's
 * organisations count against, the address invitations reach, and the active organisation.
 */
export function createOrganisationUsersRepo(db: Executor, dialect: Dialect) {
  const lockRows = dialect === 'postgres';

  return {
    /** The user's plan, email and active organisation, read under a row lock inside a transaction. */
    lockUser(
      userId: number,
    ): Promise<
      | { plan: Plan; email: string; emailVerified: boolean | number; activeOrganisationId: number | null }
      | undefined
    > {
      return db
        .selectFrom('users')
        .select(['plan', 'email', 'emailVerified', 'activeOrganisationId'])
        .where('id', '=', userId)
        .$if(lockRows, (qb) => qb.forUpdate())
        .executeTakeFirst();
    },

    /** The user's address and whether it is verified; undefined when there is no such user. */
    emailOf(userId: number): Promise<{ email: string; emailVerified: boolean | number } | undefined> {
      return db
        .selectFrom('users')
        .select(['email', 'emailVerified'])
        .where('id', '=', userId)
        .executeTakeFirst();
    },

    /** Makes the organisation the user's active one. */
    async setActiveOrganisation(userId: number, organisationId: number, now: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ activeOrganisationId: organisationId, updatedAt: now })
        .where('id', '=', userId)
        .execute();
    },

    /** Makes the organisation the user's active one when they have none; answers whether it did. */
    async setActiveIfNone(userId: number, organisationId: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ activeOrganisationId: organisationId, updatedAt: now })
        .where('id', '=', userId)
        .where('activeOrganisationId', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Clears the organisation as the active one of `userId`, or of every user when omitted. */
    async clearActiveOrganisation(organisationId: number, now: string, userId?: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ activeOrganisationId: null, updatedAt: now })
        .where('activeOrganisationId', '=', organisationId)
        .$if(userId !== undefined, (qb) => qb.where('id', '=', userId!))
        .execute();
    },
  };
}

export type OrganisationUsersRepo = ReturnType<typeof createOrganisationUsersRepo>;
