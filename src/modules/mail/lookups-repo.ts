import type { Executor } from '../../db/database.js';
import { chunks } from '../../lib/chunks.js';
import { accounts } from '../auth/ports.js';
import { invitationById, organisationOwnerIds } from '../organisations/ports.js';
import type { StoredManageLink } from '../reservations/manage-link.js';
import { sealedManageLinks } from '../reservations/ports.js';
import { resourceTypeName } from '../resource-types/ports.js';
import { GROUP_ROWS } from './messages-repo.js';

/**
 * The few read-only lookups of what a mail shows that no service answers without a signed-in
 * actor: a reservation's manage link, a resource type's name, an organisation's owners, an
 * invitation's address. Each reads through the owning modules' ports, in one statement.
 */
export function createLookupsRepo(db: Executor) {
  return {
    /**
     * The stored manage links of reservations (hash and sealed token), for the mails about
     * them: only links with a sealed token (none before migration 0057).
     */
    async manageLinks(reservationIds: readonly number[]): Promise<Map<number, StoredManageLink>> {
      const links = new Map<number, StoredManageLink>();
      for (const group of chunks([...new Set(reservationIds)], GROUP_ROWS)) {
        const rows = await sealedManageLinks(db, group).execute();
        for (const row of rows)
          if (row.manageTokenHash)
            links.set(row.id, { hash: row.manageTokenHash, sealed: row.manageTokenSealed });
      }
      return links;
    },

    async resourceTypeName(resourceTypeId: number): Promise<string | null> {
      const row = await resourceTypeName(db, resourceTypeId).executeTakeFirst();
      return row?.name ?? null;
    },

    /** The email addresses of an organisation's owners. */
    async ownerEmails(organisationId: number): Promise<string[]> {
      const rows = await db
        .selectFrom(organisationOwnerIds(db, organisationId).as('m'))
        .innerJoin(accounts(db).as('u'), 'u.id', 'm.userId')
        .select('u.email')
        .orderBy('u.email')
        .execute();
      return rows.map((row) => row.email.toLowerCase());
    },

    /**
     * Whom an open invitation is for (its email, or its account's) and who sent it;
     * undefined once it was accepted, declined or withdrawn.
     */
    invitee(invitationId: number) {
      return db
        .selectFrom(invitationById(db, invitationId).as('i'))
        .leftJoin(accounts(db).as('invited'), 'invited.id', 'i.userId')
        .leftJoin(accounts(db).as('inviter'), 'inviter.id', 'i.invitedById')
        .select(['i.email', 'invited.email as accountEmail', 'inviter.name as inviterName', 'i.expiresAt'])
        .executeTakeFirst();
    },
  };
}
