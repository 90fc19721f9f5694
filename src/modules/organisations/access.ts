import type { Db, Executor } from '../../db/database.js';
import { conflict, forbidden, notFound } from '../../http/errors.js';
import { createOrganisationRepo } from './repo.js';
import type { Organisation, OrganisationRole } from './schemas.js';

/** The caller's membership of their active organisation. */
export interface ActiveMembership {
  organisationId: number;
  role: OrganisationRole;
  /** IANA zone of the organisation: availability is computed in it. */
  timezone: string;
}

/** The caller's membership of one organisation, with the organisation itself. */
export interface MembershipOf {
  organisation: Organisation;
  role: OrganisationRole;
}

/** Who may write resource types and resources (DECISIONS.md role matrix). */
export const CATALOGUE_WRITERS: readonly OrganisationRole[] = ['OWNER', 'ADMIN', 'MANAGER'];
/** Who may change the organisation's profile, schedule, colour, billing and payment connection. */
export const ORGANISATION_ADMINS: readonly OrganisationRole[] = ['OWNER', 'ADMIN'];

/** Throws 403 FORBIDDEN unless the membership's role is one of `allowed`. */
export function assertRole(
  membership: { role: OrganisationRole },
  allowed: readonly OrganisationRole[],
): void {
  if (!allowed.includes(membership.role)) {
    throw forbidden(
      `This needs one of the organisation roles ${allowed.join(', ')}; yours is ${membership.role}`,
    );
  }
}

export interface MembershipOptions {
  /** Roles allowed; a member with another role gets 403. Any member when omitted. */
  roles?: readonly OrganisationRole[];
  /** Lets an OWNER reach an archived organisation (read, restore); everyone else gets 404. */
  allowArchived?: boolean;
}

export function createOrganisationAccess(db: Db) {
  return {
    /**
     * The user's membership of `organisationId`. Not a member, or archived (unless
     * `allowArchived` and OWNER): 404 NOT_FOUND, never revealing that it exists.
     * Role not in `options.roles`: 403 FORBIDDEN.
     */
    async requireMembership(
      user: { id: number },
      organisationId: number,
      options: MembershipOptions = {},
      executor: Executor = db.kysely,
    ): Promise<MembershipOf> {
      const found = await createOrganisationRepo(executor, db.dialect).findForMember(organisationId, user.id);
      const visible =
        found && (found.organisation.isActive || (options.allowArchived === true && found.role === 'OWNER'));
      if (!visible) throw notFound('Organisation');
      if (options.roles) assertRole(found, options.roles);
      return found;
    },

    /**
     * The caller's active organisation and role, for routes that work in it
     * (resource types, resources, reservations, MCP tools). 409
     * NO_ACTIVE_ORGANISATION when none is set, or it was archived, or the caller
     * is no longer a member.
     */
    async requireActiveMembership(user: { id: number }): Promise<ActiveMembership> {
      const found = await createOrganisationRepo(db.kysely, db.dialect).findActiveMembership(user.id);
      if (!found) {
        throw conflict(
          'NO_ACTIVE_ORGANISATION',
          'No active organisation: choose one with PATCH /api/organisations/active',
        );
      }
      return found;
    },
  };
}

export type OrganisationAccess = ReturnType<typeof createOrganisationAccess>;
