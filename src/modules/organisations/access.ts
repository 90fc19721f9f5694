import type { Db, Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import { activeMembershipQuery, createOrganisationRepo } from './repo.js';
import type { MembershipOf, OrganisationRole } from './schemas.js';

const ANY_MEMBER: readonly OrganisationRole[] = ['OWNER', 'ADMIN', 'MANAGER', 'MEMBER'];

/**
 * The role matrix of DECISIONS.md "Organisations": who may do what in an
 * organisation. Every role check goes through `can` / `assertCan` (or the
 * `can` option of the gates below). Which members an ADMIN may manage is a rule
 * of its own, in the service.
 *
 * An agent acts with its owner's role: the organisation side (organisations,
 * catalogue, availability, reservations, payments) is organisation-wide, so an
 * agent's calendar and group scope does not narrow it.
 */
export const ROLE_MATRIX = {
  readOrganisation: ANY_MEMBER,
  listMembers: ANY_MEMBER,
  updateOrganisation: ['OWNER', 'ADMIN'],
  /** What archiving would take out of service (deletion preview). */
  previewArchive: ['OWNER', 'ADMIN'],
  manageBilling: ['OWNER', 'ADMIN'],
  /** Archive and restore. */
  archiveOrganisation: ['OWNER'],
  manageMembers: ['OWNER', 'ADMIN'],
  readCatalogue: ANY_MEMBER,
  writeCatalogue: ['OWNER', 'ADMIN', 'MANAGER'],
  book: ANY_MEMBER,
  readReservations: ANY_MEMBER,
  /** Cancel a reservation someone else made; its creator may always cancel their own. */
  cancelAnyReservation: ['OWNER', 'ADMIN', 'MANAGER'],
} as const satisfies Record<string, readonly OrganisationRole[]>;
export type OrganisationAction = keyof typeof ROLE_MATRIX;

/** Whether `role` may do `action`. */
export function can(role: OrganisationRole, action: OrganisationAction): boolean {
  return (ROLE_MATRIX[action] as readonly OrganisationRole[]).includes(role);
}

/** Throws 403 FORBIDDEN unless `role` may do `action`. */
export function assertCan(role: OrganisationRole, action: OrganisationAction): void {
  if (!can(role, action)) {
    const allowed: readonly OrganisationRole[] = ROLE_MATRIX[action];
    throw forbidden(`This needs one of the organisation roles ${allowed.join(', ')}; yours is ${role}`);
  }
}

/** The actor's active organisation: what every tenant-scoped service method works in. */
export interface Tenant {
  organisationId: number;
  role: OrganisationRole;
  /** IANA zone of the organisation: availability is computed in it. */
  timezone: string;
  /** Organisation-wide schedule defaults, null when none are configured. */
  schedulePolicy: SchedulePolicy | null;
  defaultCurrency: string;
}

export interface MembershipOptions {
  /** What the member wants to do; a role the matrix does not allow gets 403. */
  can?: OrganisationAction;
  /** Lets an OWNER reach an archived organisation (read, restore); everyone else gets 404. */
  allowArchived?: boolean;
}

export function createOrganisationAccess(db: Db) {
  const findActiveMembership = activeMembershipQuery(db.kysely);
  return {
    /**
     * The tenant gate: the actor's active organisation, role and defaults in one
     * query. 409 NO_ACTIVE_ORGANISATION when none is set, or it was archived, or
     * the actor is no longer a member; 403 when `can` is not allowed to the role.
     */
    async requireTenant(actor: Actor, options: { can?: OrganisationAction } = {}): Promise<Tenant> {
      const found = await findActiveMembership(actor.userId);
      if (!found) {
        throw conflict(
          'NO_ACTIVE_ORGANISATION',
          'No active organisation: choose one with PATCH /api/organisations/active',
        );
      }
      if (options.can) assertCan(found.role, options.can);
      return found;
    },

    /**
     * The actor's membership of `organisationId`. Not a member, or archived (unless
     * `allowArchived` and OWNER): 404 NOT_FOUND, never revealing that it exists.
     * A role the matrix does not allow for `can`: 403 FORBIDDEN.
     */
    async requireMembership(
      actor: Actor,
      organisationId: number,
      options: MembershipOptions = {},
      executor: Executor = db.kysely,
    ): Promise<MembershipOf> {
      const found = await createOrganisationRepo(executor, db.dialect).findForMember(
        organisationId,
        actor.userId,
      );
      const visible =
        found && (found.organisation.isActive || (options.allowArchived === true && found.role === 'OWNER'));
      if (!visible) throw notFound('Organisation');
      if (options.can) assertCan(found.role, options.can);
      return found;
    },
  };
}

export type OrganisationAccess = ReturnType<typeof createOrganisationAccess>;
