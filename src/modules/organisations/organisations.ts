import { inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { normaliseSchedulePolicy } from '../../scheduling/schemas.js';
import { assertCan } from '../../tenancy/roles.js';
import { DEFAULT_CURRENCY } from '../payments/currencies.js';
import { countFutureReservations } from '../reservations/ports.js';
import { countResourceTypes, recolourResourceTypes } from '../resource-types/ports.js';
import { countResources } from '../resources/ports.js';
import type { OrganisationsContext } from './context.js';
import type { OrganisationValues } from './organisations-repo.js';
import { assertBelowPlanLimit } from './plan-limit.js';
import type {
  CreateOrganisationInput,
  MemberOrganisation,
  MembershipOf,
  UpdateOrganisationInput,
} from './schemas.js';
import type { OrganisationsService } from './service.js';
import { view, viewOf } from './views.js';

/**
 * `requireTwoFactor` changes only by an OWNER, and is turned on only by one who has
 * two-factor on (or they would lock themselves out of its staff routes).
 */
function assertTwoFactorPolicyChange(membership: MembershipOf, requireTwoFactor: boolean | undefined) {
  if (requireTwoFactor === undefined || requireTwoFactor === membership.organisation.requireTwoFactor) return;
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

/** The organisation, owned by the actor, in one transaction with the plan limit; see `OrganisationsService.create`. */
function create(
  { db, repoFor }: OrganisationsContext,
  actor: Actor,
  input: CreateOrganisationInput,
): Promise<MemberOrganisation> {
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
}

/** The change, in one transaction with the checks it needs; see `OrganisationsService.update`. */
function update(
  { db, repoFor, access }: OrganisationsContext,
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
        throw conflict('CONFLICT', 'The organisation is archived; restore it with {"isActive": true} first');
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
      return view(organisation, membership.role, organisation.isActive && membership.isActiveOrganisation);
    }),
  );
}

/** An organisation's own record: create, read and change it, archive it, and what archiving would take. */
export function createOrganisations(
  ctx: OrganisationsContext,
): Pick<
  OrganisationsService,
  | 'list'
  | 'create'
  | 'get'
  | 'update'
  | 'archive'
  | 'setActive'
  | 'updateBilling'
  | 'updateColour'
  | 'deletionPreview'
> {
  const { db, repoFor, access } = ctx;
  return {
    async list(actor) {
      return (await repoFor(db.kysely).listForUser(actor.userId)).map(viewOf);
    },

    create: (actor, input) => create(ctx, actor, input),

    async get(actor, organisationId) {
      return viewOf(
        await access.requireMembership(actor, organisationId, {
          can: 'readOrganisation',
          allowArchived: true,
        }),
      );
    },

    update: (actor, organisationId, input) => update(ctx, actor, organisationId, input),

    async archive(actor, organisationId) {
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

    async setActive(actor, organisationId) {
      const membership = await access.requireMembership(actor, organisationId, { ownMembership: true });
      await repoFor(db.kysely).setActiveOrganisation(actor.userId, organisationId, nowIso());
      return view(membership.organisation, membership.role, true);
    },

    async updateBilling(actor, organisationId, input) {
      const membership = await access.requireMembership(actor, organisationId, { can: 'manageBilling' });
      if (input.defaultCurrency === undefined) return viewOf(membership);
      const updated = await repoFor(db.kysely).update(
        organisationId,
        { defaultCurrency: input.defaultCurrency },
        nowIso(),
      );
      return viewOf({ ...membership, organisation: updated ?? membership.organisation });
    },

    async updateColour(actor, organisationId, input) {
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
          await recolourResourceTypes(trx, organisationId, input.color, now);
        }
        return viewOf({ ...membership, organisation: updated ?? membership.organisation });
      });
    },

    async deletionPreview(actor, organisationId) {
      await access.requireMembership(actor, organisationId, { can: 'previewArchive', allowArchived: true });
      const [members, resourceTypes, resources, futureReservations] = await Promise.all([
        repoFor(db.kysely).countMembers(organisationId),
        countResourceTypes(db.kysely, organisationId),
        countResources(db.kysely, organisationId),
        countFutureReservations(db.kysely, organisationId, nowIso()),
      ]);
      return { organisationId, members, resourceTypes, resources, futureReservations };
    },
  };
}
