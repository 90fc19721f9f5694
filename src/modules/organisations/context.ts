import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/database.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { createTenantGate, type Tenant, type TenantGate } from '../../tenancy/gate.js';
import type { EventWriter } from '../outbox/service.js';
import { activeMembershipQuery } from './organisations-repo.js';
import { createOrganisationRepo, type OrganisationRepo } from './repo.js';
import type { MemberRemoval, MembershipOf } from './schemas.js';

export interface OrganisationsServiceDeps {
  db: Db;
  config: Config;
  /** Counts invitations sent (the limits per inviter and per organisation). */
  store: EphemeralStore;
  /** Writes membership.invited and .accepted with the change. */
  events: EventWriter;
}

/** What a module ends when a member leaves or is removed, through the removal's transaction `trx`. */
export type MemberRemovedListener = (trx: Executor, removal: MemberRemoval) => Promise<void>;

/** What every organisations use case is built from: the service's dependencies, its repo and its tenant gate. */
export interface OrganisationsContext extends OrganisationsServiceDeps {
  /** The module's queries, run by `executor` (the root handle or a transaction). */
  repoFor(executor: Executor): OrganisationRepo;
  /** The tenant gate (src/tenancy), its membership reads run through this module's repo. */
  access: TenantGate<MembershipOf>;
  /** What ends with a membership (the service's `onMemberRemoved`), run in the removal's transaction. */
  memberRemovedListeners: MemberRemovedListener[];
}

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

export function createOrganisationsContext(deps: OrganisationsServiceDeps): OrganisationsContext {
  const { db } = deps;
  const repoFor = (executor: Executor) => createOrganisationRepo(executor, db.dialect);
  const access = createTenantGate<MembershipOf>({
    activeTenant: activeMembershipQuery(db.kysely),
    membership: (organisationId, userId, executor = db.kysely) =>
      repoFor(executor).findForMember(organisationId, userId),
    async tenantIn(organisationId, userId) {
      const found = await repoFor(db.kysely).findForMember(organisationId, userId);
      return found?.organisation.isActive ? tenantOf(found) : undefined;
    },
  });
  return { ...deps, repoFor, access, memberRemovedListeners: [] };
}
