import { type Executor, inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, DomainError, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationsContext } from './context.js';
import type { Person, StoredInvitation } from './invitations-repo.js';
import { assertBelowPlanLimit } from './plan-limit.js';
import type { OrganisationRepo } from './repo.js';
import type { MemberOrganisation, ReceivedInvitation } from './schemas.js';
import type { OrganisationsService } from './service.js';
import { viewOf } from './views.js';

/** The person behind an account: invitations reach them by account id, and by email once it is verified. */
async function personOf(repo: OrganisationRepo, userId: number): Promise<Person> {
  const user = await repo.emailOf(userId);
  if (user === undefined) throw notFound('User');
  return { userId, email: user.emailVerified ? user.email : null };
}

/** Why the person has no invitation to accept: one to their address waits until they verify it, else 404. */
async function refuseUninvited(
  repo: OrganisationRepo,
  organisationId: number,
  person: Person,
  email: string,
): Promise<never> {
  const waiting =
    person.email === null &&
    (await repo.invitationsOf(organisationId, { ...person, email })).length > 0 &&
    (await repo.isActiveOrganisation(organisationId));
  if (waiting)
    throw new DomainError(
      'EMAIL_NOT_VERIFIED',
      'Verify your email address first: an invitation sent to it can be accepted only then',
    );
  throw notFound('Invitation');
}

/** Makes the person a member by their open invitation (410 once every one lapsed), announced. */
async function join(
  { events }: OrganisationsContext,
  trx: Executor,
  repo: OrganisationRepo,
  userId: number,
  organisationId: number,
  invitations: readonly StoredInvitation[],
): Promise<void> {
  const now = nowIso();
  const open = invitations.find((invitation) => Date.parse(invitation.expiresAt) > Date.parse(now));
  if (!open) {
    throw conflict('INVITE_EXPIRED', 'The invitation has expired; ask for a new one');
  }
  if (open.role === 'OWNER') await assertBelowPlanLimit(repo, userId);
  await repo.insertMembership({
    organisationId,
    userId,
    role: open.role,
    assignedById: open.invitedById,
    now,
  });
  await repo.setActiveIfNone(userId, organisationId, now);
  const member = await repo.findMember(organisationId, userId);
  await events.append(trx, [
    { type: 'membership.accepted', occurredAt: now, organisationId, userId, data: member },
  ]);
}

/** The acceptance, in one transaction holding the person's row lock. */
function acceptInvitation(
  ctx: OrganisationsContext,
  actor: Actor,
  organisationId: number,
): Promise<MemberOrganisation> {
  return inTransaction(ctx.db.kysely, async (trx) => {
    const repo = ctx.repoFor(trx);
    // The user's row lock: two acceptances of one person take turns (the plan limit).
    const user = await repo.lockUser(actor.userId);
    if (!user) throw notFound('User');
    const person = { userId: actor.userId, email: user.emailVerified ? user.email : null };
    const invitations = await repo.invitationsOf(organisationId, person);
    if (invitations.length === 0 || !(await repo.isActiveOrganisation(organisationId))) {
      return refuseUninvited(repo, organisationId, person, user.email);
    }
    if (!(await repo.findMembership(organisationId, actor.userId))) {
      await join(ctx, trx, repo, actor.userId, organisationId, invitations);
    }
    // Every invitation that reached the person here is used up (a member already: left over).
    await repo.deleteInvitationsOf(organisationId, person);
    const membership = await repo.findForMember(organisationId, actor.userId);
    if (!membership) throw notFound('Invitation');
    return viewOf(membership);
  });
}

/** Invitations as the invited person sees them: their open ones, accepting and declining. */
export function createReceivedInvitations(
  ctx: OrganisationsContext,
): Pick<OrganisationsService, 'listInvitations' | 'acceptInvitation' | 'declineInvitation'> {
  const { db, repoFor } = ctx;
  return {
    async listInvitations(actor) {
      const repo = repoFor(db.kysely);
      const received = await repo.listReceivedInvitations(await personOf(repo, actor.userId), nowIso());
      const newest = new Map<number, ReceivedInvitation>();
      for (const invitation of received) {
        if (!newest.has(invitation.organisationId)) newest.set(invitation.organisationId, invitation);
      }
      return [...newest.values()];
    },

    acceptInvitation: (actor, organisationId) => acceptInvitation(ctx, actor, organisationId),

    async declineInvitation(actor, organisationId) {
      const repo = repoFor(db.kysely);
      const declined = await repo.deleteInvitationsOf(organisationId, await personOf(repo, actor.userId));
      if (declined === 0) throw notFound('Invitation');
    },
  };
}
