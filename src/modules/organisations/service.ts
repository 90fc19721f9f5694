import type { Config } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Plan } from '../../db/tables/users.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, DomainError, forbidden, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { DEFAULT_CURRENCY } from '../payments/currencies.js';
import { normaliseSchedulePolicy } from '../scheduling/schemas.js';
import { assertCan, createOrganisationAccess, type Tenant } from './access.js';
import {
  createOrganisationDependentsRepo,
  createOrganisationRepo,
  type OrganisationRepo,
  type OrganisationValues,
} from './repo.js';
import type {
  AssignMemberInput,
  CreateOrganisationInput,
  DeletionPreview,
  Member,
  MemberOrganisation,
  MembershipOf,
  Organisation,
  OrganisationRole,
  UpdateBillingInput,
  UpdateColourInput,
  UpdateOrganisationInput,
} from './schemas.js';

/** Owned active organisations a user may have, by plan (DECISIONS.md). */
export const PLAN_ORGANISATION_LIMITS: Record<Plan, number> = { STORE: 1, ENTERPRISE: 5 };

/** Roles an ADMIN may give, take away, or act on; OWNER may act on every role. */
const ADMIN_MANAGEABLE: readonly OrganisationRole[] = ['MANAGER', 'MEMBER'];

export type OrganisationsService = ReturnType<typeof createOrganisationsService>;

export function createOrganisationsService({ db }: { db: Db; config: Config }) {
  const access = createOrganisationAccess(db);
  const repoFor = (executor: Executor) => createOrganisationRepo(executor, db.dialect);
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

  /** 403 PLAN_LIMIT_REACHED when the user already owns as many active organisations as the plan allows. */
  async function assertBelowPlanLimit(repo: OrganisationRepo, userId: number): Promise<void> {
    // The row lock makes two concurrent creates (or restores) of one user take turns here.
    const owner = await repo.lockUser(userId);
    if (!owner) throw notFound('User');
    const limit = PLAN_ORGANISATION_LIMITS[owner.plan];
    const owned = await repo.countOwnedActive(userId);
    if (owned >= limit) {
      throw new DomainError(
        'PLAN_LIMIT_REACHED',
        `Plan ${owner.plan} allows ${limit} owned active organisation${limit === 1 ? '' : 's'}; ` +
          'archive one or upgrade the plan',
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

  /**
   * Which members a manager may act on, once the matrix allowed `manageMembers`:
   * an OWNER acts on every role, an ADMIN only on MANAGER and MEMBER (as the
   * member's current role and as the new one).
   */
  function assertCanManage(
    role: OrganisationRole,
    current: OrganisationRole | null,
    next: OrganisationRole | null,
  ) {
    if (role === 'OWNER') return;
    if (current !== null && !ADMIN_MANAGEABLE.includes(current)) {
      throw forbidden(`An ${role} cannot change or remove a member with role ${current}`);
    }
    if (next !== null && !ADMIN_MANAGEABLE.includes(next)) {
      throw forbidden(`An ${role} cannot give the role ${next}`);
    }
  }

  /** 409 LAST_OWNER when the member about to lose OWNER is the only one. Call inside the transaction. */
  async function assertNotLastOwner(
    repo: OrganisationRepo,
    organisationId: number,
    current: OrganisationRole,
  ) {
    if (current !== 'OWNER') return;
    await repo.lockOrganisation(organisationId);
    if ((await repo.countOwners(organisationId)) <= 1) {
      throw conflict(
        'LAST_OWNER',
        'The last OWNER can be neither removed nor demoted; make another member OWNER first',
      );
    }
  }

  async function requireMember(
    repo: OrganisationRepo,
    organisationId: number,
    userId: number,
  ): Promise<Member> {
    const found = await repo.findMember(organisationId, userId);
    if (!found) throw notFound('Member');
    return found;
  }

  /**
   * Adds the user with `role`, or changes their role when already a member.
   * `assignedById`, when given, must be the actor's user: the recorded assigner
   * is always the authenticated user (an agent's owner).
   */
  async function assignMember(
    actor: Actor,
    organisationId: number,
    input: AssignMemberInput,
    options: { onlyAdd?: boolean } = {},
  ): Promise<{ member: Member; created: boolean }> {
    if (input.assignedById !== undefined && input.assignedById !== actor.userId) {
      throw validationFailed('assignedById must be your own user id', [
        { path: 'body.assignedById', message: 'must be your own user id' },
      ]);
    }
    const now = nowIso();
    try {
      return await inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { can: 'manageMembers' },
          trx,
        );
        const existing = await repo.findMembership(organisationId, input.userId);
        if (existing && options.onlyAdd) throw conflict('CONFLICT', 'The user is already a member');
        assertCanManage(membership.role, existing?.role ?? null, input.role);
        if (existing) {
          if (existing.role !== input.role) {
            if (input.role !== 'OWNER') await assertNotLastOwner(repo, organisationId, existing.role);
            await repo.updateMembershipRole({
              organisationId,
              userId: input.userId,
              role: input.role,
              assignedById: actor.userId,
              now,
            });
          }
          return { member: await requireMember(repo, organisationId, input.userId), created: false };
        }
        if (!(await repo.userExists(input.userId))) throw notFound('User');
        await repo.insertMembership({
          organisationId,
          userId: input.userId,
          role: input.role,
          assignedById: actor.userId,
          now,
        });
        await repo.setActiveIfNone(input.userId, organisationId, now);
        return { member: await requireMember(repo, organisationId, input.userId), created: true };
      });
    } catch (error) {
      // A concurrent add of the same user lost the race on the unique (organisation, user) pair.
      if (isUniqueViolation(error)) throw conflict('CONFLICT', 'The user is already a member');
      throw error;
    }
  }

  return {
    requireTenant: access.requireTenant,
    requireMembership: access.requireMembership,

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
      const membership = await access.requireMembership(actor, organisationId);
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

    async listMembers(actor: Actor, organisationId: number): Promise<Member[]> {
      await access.requireMembership(actor, organisationId, { can: 'listMembers' });
      return repoFor(db.kysely).listMembers(organisationId);
    },

    /** Adds a user as MEMBER (OWNER or ADMIN); it becomes their active organisation when they have none. */
    async addMember(actor: Actor, organisationId: number, userId: number): Promise<Member> {
      return (await assignMember(actor, organisationId, { userId, role: 'MEMBER' }, { onlyAdd: true }))
        .member;
    },

    assignMember,

    /** Changes a member's role under the same rules as assign; 404 when the user is not a member. */
    async changeMemberRole(
      actor: Actor,
      organisationId: number,
      userId: number,
      role: OrganisationRole,
    ): Promise<Member> {
      const now = nowIso();
      return inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { can: 'manageMembers' },
          trx,
        );
        const existing = await requireMember(repo, organisationId, userId);
        assertCanManage(membership.role, existing.role, role);
        if (existing.role === role) return existing;
        if (role !== 'OWNER') await assertNotLastOwner(repo, organisationId, existing.role);
        await repo.updateMembershipRole({ organisationId, userId, role, assignedById: actor.userId, now });
        return requireMember(repo, organisationId, userId);
      });
    },

    /**
     * Removes a member (OWNER; ADMIN for MANAGER and MEMBER). Every member may
     * remove themselves (leave). The last OWNER cannot go. The organisation
     * stops being the removed user's active one.
     */
    async removeMember(actor: Actor, organisationId: number, userId: number): Promise<void> {
      const now = nowIso();
      await inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const membership = await access.requireMembership(actor, organisationId, {}, trx);
        const leaving = userId === actor.userId;
        // Checked before looking the member up, so a non-manager learns nothing about who belongs.
        if (!leaving) assertCan(membership.role, 'manageMembers');
        const existing = await requireMember(repo, organisationId, userId);
        if (!leaving) assertCanManage(membership.role, existing.role, null);
        await assertNotLastOwner(repo, organisationId, existing.role);
        await repo.deleteMembership(organisationId, userId);
        await repo.clearActiveOrganisation(organisationId, now, userId);
      });
    },
  };
}

export type { MembershipOf, Tenant };
