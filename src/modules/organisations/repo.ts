import type { Dialect, Executor } from '../../db/database.js';
import { createInvitationsRepo, type InvitationsRepo } from './invitations-repo.js';
import { createMembershipsRepo, type MembershipsRepo } from './memberships-repo.js';
import { createOrganisationsRepo, type OrganisationsRepo } from './organisations-repo.js';
import { createOrganisationUsersRepo, type OrganisationUsersRepo } from './users-repo.js';

/** Every query of organisations and memberships, by concern (the `*-repo.ts` files of this folder). */
export interface OrganisationRepo
  extends OrganisationsRepo,
    OrganisationUsersRepo,
    MembershipsRepo,
    InvitationsRepo {}

/**
 * One object for a transaction's queries: the organisation, memberships, invitations and the
 * accounts they touch. `dialect` decides row locks (PostgreSQL's `select ... for update`).
 */
export function createOrganisationRepo(db: Executor, dialect: Dialect): OrganisationRepo {
  return {
    ...createOrganisationsRepo(db, dialect),
    ...createOrganisationUsersRepo(db, dialect),
    ...createMembershipsRepo(db),
    ...createInvitationsRepo(db),
  };
}
