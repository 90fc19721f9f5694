import type { Dialect, Executor } from '../../db/database.js';
import {
  clearActiveOrganisation,
  organisationFactsOf,
  setActiveOrganisation,
  setActiveOrganisationIfNone,
} from '../auth/ports.js';
import type { Plan } from '../auth/tables.js';

/**
 * What organisations read and write of people's accounts, through auth's ports: the plan an
 * owner's organisations count against, the address invitations reach, and the active organisation.
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
      return organisationFactsOf(db, userId)
        .$if(lockRows, (qb) => qb.forUpdate())
        .executeTakeFirst();
    },

    /** The user's address and whether it is verified; undefined when there is no such user. */
    emailOf(userId: number): Promise<{ email: string; emailVerified: boolean | number } | undefined> {
      return organisationFactsOf(db, userId).executeTakeFirst();
    },

    /** Makes the organisation the user's active one. */
    setActiveOrganisation(userId: number, organisationId: number, now: string): Promise<void> {
      return setActiveOrganisation(db, userId, organisationId, now);
    },

    /** Makes the organisation the user's active one when they have none; answers whether it did. */
    setActiveIfNone(userId: number, organisationId: number, now: string): Promise<boolean> {
      return setActiveOrganisationIfNone(db, userId, organisationId, now);
    },

    /** Clears the organisation as the active one of `userId`, or of every user when omitted. */
    clearActiveOrganisation(organisationId: number, now: string, userId?: number): Promise<void> {
      return clearActiveOrganisation(db, organisationId, now, userId);
    },
  };
}

export type OrganisationUsersRepo = ReturnType<typeof createOrganisationUsersRepo>;
