import type { Config } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { conflict, DomainError, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { normaliseSchedulePolicy } from '../../scheduling/schemas.js';
import { createTenantGate, type Tenant } from '../../tenancy/gate.js';
import { assertCan } from '../../tenancy/roles.js';
import type { Plan } from '../auth/tables.js';
import type { EventWriter } from '../outbox/service.js';
import { DEFAULT_CURRENCY } from '../payments/currencies.js';
import { createOrganisationDependentsRepo } from './dependents-repo.js';
import { createMembers } from './members.js';
import { activeMembershipQuery, type OrganisationValues } from './organisations-repo.js';
import { createPublicOrganisationsRepo } from './public-repo.js';
import { createOrganisationRepo, type OrganisationRepo } from './repo.js';
import type {
  CreateOrganisationInput,
  DeletionPreview,
  MemberOrganisation,
  MemberRemoval,
  MembershipOf,
  Organisation,
  OrganisationRole,
  UpdateBillingInput,
  UpdateColourInput,
  UpdateOrganisationInput,
} from './schemas.js';

/** Owned active organisations a user may have, by plan (DECISIONS.md). */
export const PLAN_ORGANISATION_LIMITS: Record<Plan, number> = { STORE: 1, ENTERPRISE: 5 };

export type OrganisationsService = ReturnType<typeof createOrganisationsService>;

/** What a module ends when a member leaves or is removed, through the removal's transaction `trx`. */
export type MemberRemovedListener = (trx: Executor, removal: MemberRemoval) => Promise<void>;

/** The tenant a membership makes: what an actor bound to its organisation works in. */
function tenantOf({ organisation, role, memberHasTwoFactor }: MembershipOf): Tenant {
  return {
    organisationId: organisation.id,
    role,
    timezone: organisation.timezone,
    schedulePolicy: organisation.schedulePolicy ?? null,
    defaultCurrency: organisation.defaultCurrency,
    requireTwoFactor: organisation.requireTwoFactor,
    memberHasTwoFactor,
  };
}

export function createOrganisationsService({
  db,
  store,
  events,
}: {
  db: Db;
  config: Config;
  store: EphemeralStore;
  events: EventWriter;
}) {
  const repoFor = (executor: Executor) => createOrganisationRepo(executor, db.dialect);
  // The tenant gate (src/tenancy) runs its membership reads through this module's repo.
  const access = createTenantGate<MembershipOf>({
    activeTenant: activeMembershipQuery(db.kysely),
    membership: (organisationId, userId, executor = db.kysely) =>
      repoFor(executor).findForMember(organisationId, userId),
    async tenantIn(organisationId, userId) {
      const found = await repoFor(db.kysely).findForMember(organisationId, userId);
      return found?.organisation.isActive ? tenantOf(found) : undefined;
    },
  });
  const dependentsFor = (executor: Executor) => createOrganisationDependentsRepo(executor);

  function view(organisation: Organisation, role: OrganisationRole, isActiveOrganisation: boolean) {
    return {
      ...organisation,
      role,
      isOwner: role === 'OWNER',
      isActiveOrganisation,
    } satisfies MemberOrganisation;
  }
  const viewOf = ({ organisation, role, isActiveOrganisation }: MembershipOf) =>
    view(organisation, role, isActiveOrganisation);

  /**
   * 403 PLAN_LIMIT_REACHED when the user already owns as many active organisations as
   * the plan allows. `whose` names the user in the message: the caller, or the member
   * about to be made OWNER.
   */
  async function assertBelowPlanLimit(
    repo: OrganisationRepo,
    userId: number,
    whose: 'Your' | "The member's" = 'Your',
  ): Promise<void> {
    // The row lock makes two concurrent creates (or restores, or acceptances) of one user take turns here.
    const owner = await repo.lockUser(userId);
    if (!owner) throw notFound('User');
    const limit = PLAN_ORGANISATION_LIMITS[owner.plan];
    const owned = await repo.countOwnedActive(userId);
    if (owned >= limit) {
      throw new DomainError(
        'PLAN_LIMIT_REACHED',
        `${whose} plan ${owner.plan} allows ${limit} owned active organisation${limit === 1 ? '' : 's'}; ` +
          'archive one or upgrade the plan',
      );
    }
  }

  /**
   * `requireTwoFactor` changes only by an OWNER, and is turned on only by one who has
   * two-factor on (or they would lock themselves out of its staff routes).
   */
  function assertTwoFactorPolicyChange(membership: MembershipOf, requireTwoFactor: boolean | undefined) {
    if (requireTwoFactor === undefined || requireTwoFactor === membership.organisation.requireTwoFactor)
      return;
    assertCan(membership.role, 'setTwoFactorPolicy');
    if (requireTwoFactor && !membership.memberHasTwoFactor) {
      throw new DomainError(
        'TWO_FACTOR_REQUIRED',
        'Turn on two-factor sign-in for your own account before requiring it of the staff',
      );
    }
  }

  /** Runs `work`, turning a slug clash into 409 CONFLICT. */
  async function slugSafe<T>(slug: string | null | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('CONFLICT', `The slug "${slug}" is already taken`);
      throw error;
    }
  }

  function organisationValues(input: Omit<UpdateOrganisationInput, 'isActive'>): OrganisationValues {
    const { schedulePolicy, ...rest } = input;
    const values: OrganisationValues = Object.fromEntries(
      Object.entries(rest).filter(([, value]) => value !== undefined),
    );
    if (schedulePolicy !== undefined)
      values.schedulePolicy = schedulePolicy === null ? null : normaliseSchedulePolicy(schedulePolicy);
    return values;
  }

  const memberRemovedListeners: MemberRemovedListener[] = [];
  const members = createMembers({
    db,
    store,
    events,
    repoFor,
    access,
    viewOf,
    assertBelowPlanLimit,
    async memberRemoved(trx, removal) {
      for (const listener of memberRemovedListeners) await listener(trx, removal);
    },
  });

  return {
    requireTenant: access.requireTenant,
    requireMembership: access.requireMembership,

    /**
     * Registers `listener`, run in the transaction that removes a member (or in which they
     * leave): what the membership gave them ends with it (DECISIONS.md "Membership ends
     * access"). A listener that throws undoes the removal.
     */
    onMemberRemoved(listener: MemberRemovedListener): void {
      memberRemovedListeners.push(listener);
    },

    async list(actor: Actor): Promise<MemberOrganisation[]> {
      return (await repoFor(db.kysely).listForUser(actor.userId)).map(viewOf);
    },

    /** Creates an organisation owned by the actor; it becomes their active one when they have none. */
    async create(actor: Actor, input: CreateOrganisationInput): Promise<MemberOrganisation> {
      const now = nowIso();
      return slugSafe(input.slug, () =>
        inTransaction(db.kysely, async (trx) => {
          const repo = repoFor(trx);
          await assertBelowPlanLimit(repo, actor.userId);
          const organisation = await repo.insert({
            ...organisationValues(input),
            name: input.name,
            timezone: input.timezone ?? 'UTC',
            defaultCurrency: DEFAULT_CURRENCY,
            now,
          });
          await repo.insertMembership({
            organisationId: organisation.id,
            userId: actor.userId,
            role: 'OWNER',
            assignedById: null,
            now,
          });
          const madeActive = await repo.setActiveIfNone(actor.userId, organisation.id, now);
          return view(organisation, 'OWNER', madeActive);
        }),
      );
    },

    /**
     * Read port for work that acts for no member (a job, a mail, a feed): the organisation,
     * archived or not, without an access check.
     */
    organisationById: (organisationId: number): Promise<Organisation | undefined> =>
      repoFor(db.kysely).findById(organisationId),

    /** Read port: whether the person is a member, read in the caller's transaction (a resource's manager must be). */
    isMember: (executor: Executor, organisationId: number, userId: number): Promise<boolean> =>
      repoFor(executor).isMember(organisationId, userId),

    /** Read ports of the public booking page: an active organisation by slug or id. */
    ...createPublicOrganisationsRepo(db.kysely),

    /** Any member; an OWNER also reads an archived organisation. */
    async get(actor: Actor, organisationId: number): Promise<MemberOrganisation> {
      return viewOf(
        await access.requireMembership(actor, organisationId, {
          can: 'readOrganisation',
          allowArchived: true,
        }),
      );
    },

    /**
     * Profile, timezone and schedulePolicy: OWNER or ADMIN. Changing `isActive`
     * (archive or restore) is OWNER only; restoring counts against the plan limit.
     * `requireTwoFactor`: OWNER only (see assertTwoFactorPolicyChange).
     */
    async update(
      actor: Actor,
      organisationId: number,
      input: UpdateOrganisationInput,
    ): Promise<MemberOrganisation> {
      const { isActive, ...fields } = input;
      const now = nowIso();
      return slugSafe(input.slug, () =>
        inTransaction(db.kysely, async (trx) => {
          const repo = repoFor(trx);
          const membership = await access.requireMembership(
            actor,
            organisationId,
            { can: 'updateOrganisation', allowArchived: true },
            trx,
          );
          let organisation = membership.organisation;
          const changesState = isActive !== undefined && isActive !== organisation.isActive;
          if (changesState) assertCan(membership.role, 'archiveOrganisation');
          assertTwoFactorPolicyChange(membership, fields.requireTwoFactor);
          if (!organisation.isActive && !changesState) {
            throw conflict(
              'CONFLICT',
              'The organisation is archived; restore it with {"isActive": true} first',
            );
          }
          if (changesState && isActive) {
            await assertBelowPlanLimit(repo, actor.userId);
            organisation = (await repo.setActiveState(organisationId, true, now)) ?? organisation;
          }
          const values = organisationValues(fields);
          if (Object.keys(values).length > 0) {
            organisation = (await repo.update(organisationId, values, now)) ?? organisation;
          }
          if (changesState && !isActive) {
            organisation = (await repo.setActiveState(organisationId, false, now)) ?? organisation;
            await repo.clearActiveOrganisation(organisationId, now);
          }
          return view(
            organisation,
            membership.role,
            organisation.isActive && membership.isActiveOrganisation,
          );
        }),
      );
    },

    /** Archives (never hard-deletes): OWNER only; clears it as anyone's active organisation. Idempotent. */
    async archive(actor: Actor, organisationId: number): Promise<MemberOrganisation> {
      const now = nowIso();
      return inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { can: 'archiveOrganisation', allowArchived: true },
          trx,
        );
        let organisation = membership.organisation;
        if (organisation.isActive) {
          organisation = (await repo.setActiveState(organisationId, false, now)) ?? organisation;
          await repo.clearActiveOrganisation(organisationId, now);
        }
        return view(organisation, membership.role, false);
      });
    },

    /** Makes an organisation the actor belongs to their active one; 404 for any other (archived included). */
    async setActive(actor: Actor, organisationId: number): Promise<MemberOrganisation> {
      const membership = await access.requireMembership(actor, organisationId, { ownMembership: true });
      await repoFor(db.kysely).setActiveOrganisation(actor.userId, organisationId, nowIso());
      return view(membership.organisation, membership.role, true);
    },

    /** OWNER or ADMIN. `defaultCurrency` arrives lowercase and supported (see currencyCode). */
    async updateBilling(actor: Actor, organisationId: number, input: UpdateBillingInput) {
      const membership = await access.requireMembership(actor, organisationId, { can: 'manageBilling' });
      if (input.defaultCurrency === undefined) return viewOf(membership);
      const updated = await repoFor(db.kysely).update(
        organisationId,
        { defaultCurrency: input.defaultCurrency },
        nowIso(),
      );
      return viewOf({ ...membership, organisation: updated ?? membership.organisation });
    },

    /**
     * OWNER or ADMIN. With `cascadeToResourceTypes`, every resource type of the
     * organisation takes the colour too, in the same transaction.
     */
    async updateColour(actor: Actor, organisationId: number, input: UpdateColourInput) {
      const now = nowIso();
      return inTransaction(db.kysely, async (trx) => {
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { can: 'updateOrganisation' },
          trx,
        );
        const updated = await repoFor(trx).update(organisationId, { color: input.color }, now);
        if (input.cascadeToResourceTypes) {
          await dependentsFor(trx).recolourResourceTypes(organisationId, input.color, now);
        }
        return viewOf({ ...membership, organisation: updated ?? membership.organisation });
      });
    },

    /** What archiving would take out of service. OWNER or ADMIN; an OWNER also of an archived one. */
    async deletionPreview(actor: Actor, organisationId: number): Promise<DeletionPreview> {
      await access.requireMembership(actor, organisationId, { can: 'previewArchive', allowArchived: true });
      const dependents = dependentsFor(db.kysely);
      const [members, resourceTypes, resources, futureReservations] = await Promise.all([
        repoFor(db.kysely).countMembers(organisationId),
        dependents.countResourceTypes(organisationId),
        dependents.countResources(organisationId),
        dependents.countFutureReservations(organisationId, nowIso()),
      ]);
      return { organisationId, members, resourceTypes, resources, futureReservations };
    },

    ...members,
  };
}

export type { MembershipOf, Tenant };
