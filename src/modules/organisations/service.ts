import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import type { MembershipOptions, Tenant } from '../../tenancy/gate.js';
import type { OrganisationAction } from '../../tenancy/roles.js';
import {
  createOrganisationsContext,
  type MemberRemovedListener,
  type OrganisationsServiceDeps,
} from './context.js';
import { createInviting } from './invite.js';
import { createMembers } from './members.js';
import { createOrganisations } from './organisations.js';
import { createPublicOrganisationsRepo } from './public-repo.js';
import { createReceivedInvitations } from './received-invitations.js';
import type {
  AddMemberInput,
  AssignMemberInput,
  CreateOrganisationInput,
  DeletionPreview,
  Invitation,
  Member,
  MemberListEntry,
  MemberOrganisation,
  MembershipOf,
  Organisation,
  OrganisationRole,
  ReceivedInvitation,
  UpdateBillingInput,
  UpdateColourInput,
  UpdateOrganisationInput,
} from './schemas.js';

export type { MemberRemovedListener, OrganisationsServiceDeps } from './context.js';
export type { MembershipOf, Tenant };

/** An invitation as its sender gets it back: new, or the renewal of the person's open one. */
export interface SentInvitation {
  invitation: Invitation;
  created: boolean;
}

/**
 * Organisations and who belongs to them: each organisation's record (archived, never
 * deleted), the plan's limit of owned ones, invitations, members and their roles, and the
 * tenant gate every tenant-scoped service method starts at (src/tenancy/gate.ts).
 */
export interface OrganisationsService {
  /** The actor's active organisation as a tenant; see the tenant gate's `requireTenant`. */
  requireTenant(actor: Actor, options?: { can?: OrganisationAction }): Promise<Tenant>;
  /** The actor's membership of the organisation, or a 404/403; see the tenant gate's `requireMembership`. */
  requireMembership(
    actor: Actor,
    organisationId: number,
    options?: MembershipOptions,
    executor?: Executor,
  ): Promise<MembershipOf>;
  /**
   * Registers `listener`, run in the transaction that removes a member (or in which they
   * leave): what the membership gave them ends with it (DECISIONS.md "Membership ends
   * access"). A listener that throws undoes the removal.
   */
  onMemberRemoved(listener: MemberRemovedListener): void;

  /** The organisations the actor belongs to. */
  list(actor: Actor): Promise<MemberOrganisation[]>;
  /** Creates an organisation owned by the actor; it becomes their active one when they have none. */
  create(actor: Actor, input: CreateOrganisationInput): Promise<MemberOrganisation>;
  /** Any member; an OWNER also reads an archived organisation. */
  get(actor: Actor, organisationId: number): Promise<MemberOrganisation>;
  /**
   * Profile, timezone and schedulePolicy: OWNER or ADMIN. Changing `isActive`
   * (archive or restore) is OWNER only; restoring counts against the plan limit.
   * `requireTwoFactor`: OWNER only, turned on only by one who has two-factor on.
   */
  update(actor: Actor, organisationId: number, input: UpdateOrganisationInput): Promise<MemberOrganisation>;
  /** Archives (never hard-deletes): OWNER only; clears it as anyone's active organisation. Idempotent. */
  archive(actor: Actor, organisationId: number): Promise<MemberOrganisation>;
  /** Makes an organisation the actor belongs to their active one; 404 for any other (archived included). */
  setActive(actor: Actor, organisationId: number): Promise<MemberOrganisation>;
  /** OWNER or ADMIN. `defaultCurrency` arrives lowercase and supported (see currencyCode). */
  updateBilling(actor: Actor, organisationId: number, input: UpdateBillingInput): Promise<MemberOrganisation>;
  /**
   * OWNER or ADMIN. With `cascadeToResourceTypes`, every resource type of the
   * organisation takes the colour too, in the same transaction.
   */
  updateColour(actor: Actor, organisationId: number, input: UpdateColourInput): Promise<MemberOrganisation>;
  /** What archiving would take out of service. OWNER or ADMIN; an OWNER also of an archived one. */
  deletionPreview(actor: Actor, organisationId: number): Promise<DeletionPreview>;

  /** Active members, then invitations (which show nothing about the invited person). */
  listMembers(actor: Actor, organisationId: number): Promise<MemberListEntry[]>;
  /**
   * Changes a member's role under the role matrix; 404 when the user is not a member.
   * Making them OWNER counts against their plan (403 PLAN_LIMIT_REACHED at its limit).
   */
  changeMemberRole(
    actor: Actor,
    organisationId: number,
    userId: number,
    role: OrganisationRole,
  ): Promise<Member>;
  /**
   * Removes a member (OWNER; ADMIN for MANAGER and MEMBER), or withdraws the
   * invitation of that user id under the same rules. Every member may remove
   * themselves (leave). The last OWNER cannot go. The organisation stops being the
   * removed user's active one.
   */
  removeMember(actor: Actor, organisationId: number, userId: number): Promise<void>;

  /**
   * Invites a person, by account id or by email, as MEMBER (OWNER, ADMIN), or renews their
   * invitation. The answer is the same whether or not an account exists; nothing changes
   * for the person until they accept.
   */
  addMember(actor: Actor, organisationId: number, input: AddMemberInput): Promise<SentInvitation>;
  /**
   * Invites a person with a role (OWNER; ADMIN for MANAGER and MEMBER), as `addMember`.
   * `assignedById`, when given, must be the actor's user.
   */
  assignMember(actor: Actor, organisationId: number, input: AssignMemberInput): Promise<SentInvitation>;
  /** Withdraws an invitation, by account or by email (OWNER; ADMIN for MANAGER and MEMBER ones). */
  withdrawInvitation(actor: Actor, organisationId: number, invitationId: number): Promise<void>;

  /**
   * The actor's open invitations to active organisations they do not belong to yet,
   * newest first; one per organisation (an invitation by account and one by email
   * show as the newer of the two).
   */
  listInvitations(actor: Actor): Promise<ReceivedInvitation[]>;
  /**
   * Accepts the actor's invitation: they become a member with its role (recorded as
   * assigned by the inviter), and it becomes their active organisation when they have
   * none. 404 without an invitation (or for an archived organisation); 410
   * INVITE_EXPIRED once it lapsed; an OWNER invitation at the plan limit 403
   * PLAN_LIMIT_REACHED (the invitation stays, to accept after archiving one).
   */
  acceptInvitation(actor: Actor, organisationId: number): Promise<MemberOrganisation>;
  /** Declines (deletes) the actor's invitations to the organisation; 404 when there are none. */
  declineInvitation(actor: Actor, organisationId: number): Promise<void>;

  /**
   * Read port for work that acts for no member (a job, a mail, a feed): the organisation,
   * archived or not, without an access check.
   */
  organisationById(organisationId: number): Promise<Organisation | undefined>;
  /** Read port: whether the person is a member, read in the caller's transaction (a resource's manager must be). */
  isMember(executor: Executor, organisationId: number, userId: number): Promise<boolean>;
  /** Read port of the public booking page: an active organisation by its public slug. */
  publicOrganisationBySlug: PublicOrganisations['publicOrganisationBySlug'];
  /** Read port of the public booking page: an active organisation by id. */
  publicOrganisationById: PublicOrganisations['publicOrganisationById'];
}

type PublicOrganisations = ReturnType<typeof createPublicOrganisationsRepo>;

export function createOrganisationsService(deps: OrganisationsServiceDeps): OrganisationsService {
  const ctx = createOrganisationsContext(deps);
  return {
    requireTenant: ctx.access.requireTenant,
    requireMembership: ctx.access.requireMembership,
    onMemberRemoved(listener) {
      ctx.memberRemovedListeners.push(listener);
    },
    ...createOrganisations(ctx),
    ...createMembers(ctx),
    ...createInviting(ctx),
    ...createReceivedInvitations(ctx),
    organisationById: (organisationId) => ctx.repoFor(deps.db.kysely).findById(organisationId),
    isMember: (executor, organisationId, userId) => ctx.repoFor(executor).isMember(organisationId, userId),
    ...createPublicOrganisationsRepo(deps.db.kysely),
  };
}
