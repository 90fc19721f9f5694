import type { Db, Executor } from '../../db/database.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { forbidden } from '../../lib/errors.js';
import type { TenantGate } from '../../tenancy/gate.js';
import type { EventWriter } from '../outbox/service.js';
import type { OrganisationRepo } from './repo.js';
import type { MemberOrganisation, MemberRemoval, MembershipOf, OrganisationRole } from './schemas.js';

/** What the member use cases (members.ts, invite.ts, received-invitations.ts) are given by the service. */
export interface MembersDeps {
  db: Db;
  /** Counts invitations sent (the limits per inviter and per organisation). */
  store: EphemeralStore;
  /** Writes membership.invited and .accepted with the change. */
  events: EventWriter;
  repoFor(executor: Executor): OrganisationRepo;
  access: TenantGate<MembershipOf>;
  viewOf(membership: MembershipOf): MemberOrganisation;
  assertBelowPlanLimit(
    repo: OrganisationRepo,
    userId: number,
    whose?: 'Your' | "The member's",
  ): Promise<void>;
  /** Ends what the membership gave (the service's `onMemberRemoved` listeners), in the removal's transaction. */
  memberRemoved(trx: Executor, removal: MemberRemoval): Promise<void>;
}

/** Roles an ADMIN may give, take away, or act on; OWNER may act on every role. */
const ADMIN_MANAGEABLE: readonly OrganisationRole[] = ['MANAGER', 'MEMBER'];

/**
 * Which members a manager may act on, once the matrix allowed `manageMembers`:
 * an OWNER acts on every role, an ADMIN only on MANAGER and MEMBER (as the
 * member's current role and as the new one).
 */
export function assertCanManage(
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
