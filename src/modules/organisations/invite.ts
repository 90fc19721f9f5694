import { type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, DomainError, invalidInput, notFound } from '../../lib/errors.js';
import { isoAfterSeconds } from '../../lib/time.js';
import type { OrganisationsContext } from './context.js';
import type { Invitee, StoredInvitation } from './invitations-repo.js';
import { assertCanManage } from './member-access.js';
import type { AddMemberInput, AssignMemberInput, OrganisationRole } from './schemas.js';
import { invitation as invitationRecord } from './schemas.js';
import type { OrganisationsService, SentInvitation } from './service.js';

/** How long an invitation stays open (DECISIONS.md "Membership by invitation"). */
export const INVITATION_LIFETIME_SECONDS = 14 * 24 * 60 * 60;

/** How many invitations may go out (DECISIONS.md "Accounts"). */
const INVITATIONS_PER_INVITER_HOUR = 10;
const INVITATIONS_PER_ORGANISATION_DAY = 100;

/**
 * Invitations mail whoever they name: at most 10 an hour per inviter and 100 a day per
 * organisation (DECISIONS.md "Accounts"), counted once the inviter may invite, so nobody
 * else can use up an organisation's allowance.
 */
async function limitInvitations(
  { store }: OrganisationsContext,
  inviterId: number,
  organisationId: number,
): Promise<void> {
  const limited = async (key: string, max: number, windowSeconds: number, message: string) => {
    const { count, resetInSeconds } = await store.hit(key, windowSeconds);
    if (count > max) throw new DomainError('RATE_LIMITED', message, undefined, resetInSeconds);
  };
  await limited(
    `invitations:inviter:${inviterId}`,
    INVITATIONS_PER_INVITER_HOUR,
    60 * 60,
    'You sent too many invitations; try again later',
  );
  await limited(
    `invitations:organisation:${organisationId}`,
    INVITATIONS_PER_ORGANISATION_DAY,
    24 * 60 * 60,
    'This organisation sent too many invitations today; try again tomorrow',
  );
}

/** An invitation body's person: exactly one of userId and email (the schemas check it too). */
function inviteeOf(input: AddMemberInput): Invitee {
  if (input.userId !== undefined && input.email === undefined) return { userId: input.userId };
  if (input.email !== undefined && input.userId === undefined) return { email: input.email };
  throw invalidInput('Give exactly one of userId and email', [
    { path: '', message: 'give exactly one of userId and email' },
  ]);
}

/**
 * The invitation written in `trx`: who may invite whom, then `countOnce` (the sending
 * limits), then a new invitation or the renewal of the person's open one, announced.
 */
async function inviteIn(
  { repoFor, access, events }: OrganisationsContext,
  trx: Executor,
  actor: Actor,
  organisationId: number,
  role: OrganisationRole,
  invitee: Invitee,
  countOnce: () => Promise<void>,
): Promise<{ invitation: StoredInvitation; created: boolean }> {
  const repo = repoFor(trx);
  const membership = await access.requireMembership(actor, organisationId, { can: 'manageMembers' }, trx);
  assertCanManage(membership.role, null, role);
  const member =
    'userId' in invitee
      ? await repo.findMembership(organisationId, invitee.userId)
      : await repo.findMemberByEmail(organisationId, invitee.email);
  if (member) {
    throw conflict('ALREADY_MEMBER', 'This person is already a member; change their role instead');
  }
  const existing = await repo.findInvitation(organisationId, invitee);
  if (existing) assertCanManage(membership.role, existing.role, role);
  await countOnce();
  // One reading of the clock: the lifetime is exactly what it says.
  const invitedAt = Date.now();
  const values = {
    organisationId,
    role,
    invitedById: actor.userId,
    invitedAt: new Date(invitedAt).toISOString(),
    expiresAt: isoAfterSeconds(INVITATION_LIFETIME_SECONDS, invitedAt),
  };
  const invited = existing
    ? { invitation: await repo.renewInvitation(existing.invitationId, values), created: false }
    : { invitation: await repo.insertInvitation({ ...values, ...invitee }), created: true };
  // A renewal is announced too: its role or lifetime changed, and it is mailed again.
  await events.append(trx, [
    {
      type: 'membership.invited',
      occurredAt: values.invitedAt,
      organisationId,
      userId: invited.invitation.userId,
      // The record as the API answers it (the inviter's id is the organisation's own business).
      data: invitationRecord.parse(invited.invitation),
    },
  ]);
  return invited;
}

/**
 * Invites a person, by account id or by email, with `role` (who may invite whom is
 * the role matrix), or renews their invitation with the new role and a new lifetime.
 * Nothing is looked up about the person but whether they are a member already, so
 * the answer is the same whether or not an account exists: an id or email no account
 * has is stored like any other, and reaches nobody unless an account with it ever
 * appears. Nothing changes for the person until they accept. `assignedById`, when
 * given, must be the actor's user.
 */
async function invite(
  ctx: OrganisationsContext,
  actor: Actor,
  organisationId: number,
  input: AssignMemberInput,
): Promise<SentInvitation> {
  if (input.assignedById !== undefined && input.assignedById !== actor.userId) {
    throw invalidInput('assignedById must be your own user id', [
      { path: 'assignedById', message: 'must be your own user id' },
    ]);
  }
  const invitee = inviteeOf(input);
  let counted = false;
  const countOnce = async () => {
    if (counted) return;
    counted = true;
    await limitInvitations(ctx, actor.userId, organisationId);
  };
  const attempt = () =>
    inTransaction(ctx.db.kysely, (trx) =>
      inviteIn(ctx, trx, actor, organisationId, input.role, invitee, countOnce),
    );
  try {
    return await attempt();
  } catch (error) {
    // A concurrent invitation of the same person was inserted first: this one renews it.
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** Invitations as the organisation's managers send them: invite (or renew), and withdraw. */
export function createInviting(
  ctx: OrganisationsContext,
): Pick<OrganisationsService, 'addMember' | 'assignMember' | 'withdrawInvitation'> {
  const { db, repoFor, access } = ctx;
  return {
    addMember: (actor, organisationId, input) =>
      invite(ctx, actor, organisationId, { ...input, role: 'MEMBER' }),

    assignMember: (actor, organisationId, input) => invite(ctx, actor, organisationId, input),

    async withdrawInvitation(actor, organisationId, invitationId) {
      await inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { can: 'manageMembers' },
          trx,
        );
        const invitation = await repo.findInvitationById(organisationId, invitationId);
        if (!invitation) throw notFound('Invitation');
        assertCanManage(membership.role, invitation.role, null);
        await repo.deleteInvitation(invitation.invitationId);
      });
    },
  };
}
