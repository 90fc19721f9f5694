import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { assertCan } from '../../tenancy/roles.js';
import type { OrganisationsContext } from './context.js';
import { assertCanManage } from './member-access.js';
import { assertBelowPlanLimit } from './plan-limit.js';
import type { OrganisationRepo } from './repo.js';
import type { Member, OrganisationRole } from './schemas.js';
import type { OrganisationsService } from './service.js';

/** 409 LAST_OWNER when the member about to lose OWNER is the only one. Call inside the transaction. */
async function assertNotLastOwner(repo: OrganisationRepo, organisationId: number, current: OrganisationRole) {
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

/** The role change, in one transaction with the checks it needs. */
async function changeMemberRole(
  { db, repoFor, access }: OrganisationsContext,
  actor: Actor,
  organisationId: number,
  userId: number,
  role: OrganisationRole,
): Promise<Member> {
  const now = nowIso();
  return inTransaction(db.kysely, async (trx) => {
    const repo = repoFor(trx);
    const membership = await access.requireMembership(actor, organisationId, { can: 'manageMembers' }, trx);
    const existing = await requireMember(repo, organisationId, userId);
    assertCanManage(membership.role, existing.role, role);
    if (existing.role === role) return existing;
    if (role !== 'OWNER') await assertNotLastOwner(repo, organisationId, existing.role);
    // Ownership counts against the member's plan: never beyond it without them.
    else await assertBelowPlanLimit(repo, userId, "The member's");
    await repo.updateMembershipRole({ organisationId, userId, role, assignedById: actor.userId, now });
    return requireMember(repo, organisationId, userId);
  });
}

/** The removal (or the withdrawn invitation), in one transaction with what the membership gave. */
async function removeMember(
  { db, repoFor, access, memberRemovedListeners }: OrganisationsContext,
  actor: Actor,
  organisationId: number,
  userId: number,
): Promise<void> {
  const now = nowIso();
  await inTransaction(db.kysely, async (trx) => {
    const repo = repoFor(trx);
    const leaving = userId === actor.userId;
    const membership = await access.requireMembership(actor, organisationId, { ownMembership: leaving }, trx);
    // Checked before looking the member up, so a non-manager learns nothing about who belongs.
    if (!leaving) assertCan(membership.role, 'manageMembers');
    const existing = await repo.findMember(organisationId, userId);
    if (!existing) {
      const invitation = leaving ? undefined : await repo.findInvitation(organisationId, { userId });
      if (!invitation) throw notFound('Member');
      assertCanManage(membership.role, invitation.role, null);
      await repo.deleteInvitation(invitation.invitationId);
      return;
    }
    if (!leaving) assertCanManage(membership.role, existing.role, null);
    await assertNotLastOwner(repo, organisationId, existing.role);
    await repo.deleteMembership(organisationId, userId);
    await repo.clearActiveOrganisation(organisationId, now, userId);
    for (const listener of memberRemovedListeners) await listener(trx, { organisationId, userId });
  });
}

/**
 * Who belongs to an organisation: the member list, role changes and removal, under the role
 * matrix and the rule that the last OWNER stays. Invitations: invite.ts, received-invitations.ts.
 */
export function createMembers(
  ctx: OrganisationsContext,
): Pick<OrganisationsService, 'listMembers' | 'changeMemberRole' | 'removeMember'> {
  const { db, repoFor, access } = ctx;
  return {
    async listMembers(actor, organisationId) {
      await access.requireMembership(actor, organisationId, { can: 'listMembers' });
      const repo = repoFor(db.kysely);
      const [members, invitations] = await Promise.all([
        repo.listMembers(organisationId),
        repo.listInvitations(organisationId),
      ]);
      return [...members, ...invitations];
    },
    changeMemberRole: (actor, organisationId, userId, role) =>
      changeMemberRole(ctx, actor, organisationId, userId, role),
    removeMember: (actor, organisationId, userId) => removeMember(ctx, actor, organisationId, userId),
  };
}
