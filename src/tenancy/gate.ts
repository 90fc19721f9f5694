import type { Executor } from '../db/database.js';
import type { Actor } from '../lib/actor.js';
import { conflict, DomainError, notFound } from '../lib/errors.js';
import type { OrganisationRole } from '../modules/organisations/tables.js';
import type { SchedulePolicy } from '../scheduling/schemas.js';
import { activeTenantReadWith } from './active-tenant.js';
import { assertCan, type OrganisationAction } from './roles.js';

/** The actor's active organisation: what every tenant-scoped service method works in. */
export interface Tenant {
  organisationId: number;
  role: OrganisationRole;
  /** IANA zone of the organisation: availability is computed in it. */
  timezone: string;
  /** Organisation-wide schedule defaults, null when none are configured. */
  schedulePolicy: SchedulePolicy | null;
  defaultCurrency: string;
  /** The organisation requires two-factor sign-in of its staff. */
  requireTwoFactor: boolean;
  /** The member has two-factor sign-in on. */
  memberHasTwoFactor: boolean;
}

/**
 * What the gate needs to know of a membership: the role, whether the organisation is
 * archived or requires two-factor, and whether the member has it on.
 */
export interface Membership {
  role: OrganisationRole;
  organisation: { isActive: boolean; requireTwoFactor: boolean };
  memberHasTwoFactor: boolean;
}

/**
 * The membership reads the gate runs, implemented by the organisations module with
 * its repo: the gate knows no module and no table.
 */
export interface MembershipReader<M extends Membership = Membership> {
  /**
   * The user's active organisation, their role in it and its defaults (one query, on
   * every tenant-scoped request); undefined when none is set, it is archived, or the
   * user is no longer a member.
   */
  activeTenant(userId: number): Promise<Tenant | undefined>;
  /**
   * The tenant of `organisationId` for one of its members (an actor bound to it, see
   * `Actor.organisationId`); undefined when archived or the user is not a member.
   */
  tenantIn(organisationId: number, userId: number): Promise<Tenant | undefined>;
  /** The user's membership of `organisationId`, archived or not; undefined for a non-member. */
  membership(organisationId: number, userId: number, executor?: Executor): Promise<M | undefined>;
}

export interface MembershipOptions {
  /** What the member wants to do; a role the matrix does not allow gets 403. */
  can?: OrganisationAction;
  /** Lets an OWNER reach an archived organisation (read, restore); everyone else gets 404. */
  allowArchived?: boolean;
  /**
   * The member's own business with the organisation (make it their active one, leave it):
   * allowed to staff without two-factor even where the organisation requires it.
   */
  ownMembership?: boolean;
}

/** The roles an organisation's `requireTwoFactor` applies to: everyone who manages something of it. */
const TWO_FACTOR_ROLES: readonly OrganisationRole[] = ['OWNER', 'ADMIN', 'MANAGER'];

/** 403 TWO_FACTOR_REQUIRED for staff without two-factor of an organisation that requires it. */
function assertTwoFactorIfRequired(role: OrganisationRole, required: boolean, memberHasIt: boolean): void {
  if (required && !memberHasIt && TWO_FACTOR_ROLES.includes(role)) {
    throw new DomainError(
      'TWO_FACTOR_REQUIRED',
      'This organisation requires two-factor sign-in of its staff: turn it on for your account (Security) first',
    );
  }
}

/** The tenant gate: every tenant-scoped service method starts here. */
export function createTenantGate<M extends Membership>(reader: MembershipReader<M>) {
  /** The tenant of the organisation `actor` is bound to; null when none, left or archived. */
  async function boundTenant({ organisationId, userId }: Actor): Promise<Tenant | null> {
    if (organisationId == null) return null;
    return (await reader.tenantIn(organisationId, userId)) ?? null;
  }

  return {
    /**
     * The actor's active organisation, role and defaults: as the guard read them with the
     * credential in this request, or else in one query. 409
     * NO_ACTIVE_ORGANISATION when none is set, or it was archived, or the actor is
     * no longer a member; 403 TWO_FACTOR_REQUIRED when it requires two-factor of the
     * actor's role and the actor has none (an agent answers for its person); 403 when
     * `can` is not allowed to the role.
     */
    async requireTenant(actor: Actor, options: { can?: OrganisationAction } = {}): Promise<Tenant> {
      // Read with the credential in this request when the guard could; otherwise now. An
      // approved call's actor is bound to the organisation it was asked in, never the active one.
      const read =
        actor.organisationId === undefined ? activeTenantReadWith(actor) : await boundTenant(actor);
      const found = read === undefined ? await reader.activeTenant(actor.userId) : (read ?? undefined);
      if (!found) {
        throw conflict(
          'NO_ACTIVE_ORGANISATION',
          'No active organisation: choose one first (an organisation you belong to becomes active when you create or join it)',
        );
      }
      assertTwoFactorIfRequired(found.role, found.requireTwoFactor, found.memberHasTwoFactor);
      if (options.can) assertCan(found.role, options.can);
      return found;
    },

    /**
     * The actor's membership of `organisationId`. Not a member, or archived (unless
     * `allowArchived` and OWNER): 404 NOT_FOUND, never revealing that it exists.
     * Staff without two-factor of an organisation that requires it: 403
     * TWO_FACTOR_REQUIRED, unless `ownMembership`. A role the matrix does not allow for
     * `can`: 403 FORBIDDEN. `executor` runs the read in the caller's transaction.
     */
    async requireMembership(
      actor: Actor,
      organisationId: number,
      options: MembershipOptions = {},
      executor?: Executor,
    ): Promise<M> {
      const found = await reader.membership(organisationId, actor.userId, executor);
      const visible =
        found && (found.organisation.isActive || (options.allowArchived === true && found.role === 'OWNER'));
      if (!visible) throw notFound('Organisation');
      if (!options.ownMembership)
        assertTwoFactorIfRequired(found.role, found.organisation.requireTwoFactor, found.memberHasTwoFactor);
      if (options.can) assertCan(found.role, options.can);
      return found;
    },
  };
}

export type TenantGate<M extends Membership = Membership> = ReturnType<typeof createTenantGate<M>>;
