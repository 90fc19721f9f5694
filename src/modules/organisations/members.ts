import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { conflict, DomainError, forbidden, invalidInput, notFound } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { TenantGate } from '../../tenancy/gate.js';
import { assertCan } from '../../tenancy/roles.js';
import type { EventWriter } from '../outbox/service.js';
import type { Invitee, OrganisationRepo, Person } from './repo.js';
import type {
  AddMemberInput,
  AssignMemberInput,
  Invitation,
  Member,
  MemberListEntry,
  MemberOrganisation,
  MemberRemoval,
  MembershipOf,
  OrganisationRole,
  ReceivedInvitation,
} from './schemas.js';
import { invitation as invitationRecord } from './schemas.js';

/** How long an invitation stays open (DECISIONS.md "Membership by invitation"). */
export const INVITATION_LIFETIME_SECONDS = 14 * 24 * 60 * 60;

/** How many invitations may go out (DECISIONS.md "Accounts"). */
const INVITATIONS_PER_INVITER_HOUR = 10;
const INVITATIONS_PER_ORGANISATION_DAY = 100;

/** Roles an ADMIN may give, take away, or act on; OWNER may act on every role. */
const ADMIN_MANAGEABLE: readonly OrganisationRole[] = ['MANAGER', 'MEMBER'];

interface MembersDeps {
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

/**
 * Who belongs to an organisation: invitations (by account or email) that change nothing
 * for the person until they accept, the member list, role changes and removal, under the
 * role matrix and the rule that the last OWNER stays.
 */
export function createMembers(deps: MembersDeps) {
  const { db, store, events, repoFor, access, viewOf, assertBelowPlanLimit } = deps;
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
   * Invitations mail whoever they name: at most 10 an hour per inviter and 100 a day per
   * organisation (DECISIONS.md "Accounts"), counted once the inviter may invite, so nobody
   * else can use up an organisation's allowance.
   */
  async function limitInvitations(inviterId: number, organisationId: number): Promise<void> {
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

  /** The person behind an account: invitations reach them by account id, and by email once it is verified. */
  async function personOf(repo: OrganisationRepo, userId: number): Promise<Person> {
    const user = await repo.emailOf(userId);
    if (user === undefined) throw notFound('User');
    return { userId, email: user.emailVerified ? user.email : null };
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
    actor: Actor,
    organisationId: number,
    input: AssignMemberInput,
  ): Promise<{ invitation: Invitation; created: boolean }> {
    if (input.assignedById !== undefined && input.assignedById !== actor.userId) {
      throw invalidInput('assignedById must be your own user id', [
        { path: 'assignedById', message: 'must be your own user id' },
      ]);
    }
    const invitee = inviteeOf(input);
    let counted = false;
    const attempt = () =>
      inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { can: 'manageMembers' },
          trx,
        );
        assertCanManage(membership.role, null, input.role);
        const member =
          'userId' in invitee
            ? await repo.findMembership(organisationId, invitee.userId)
            : await repo.findMemberByEmail(organisationId, invitee.email);
        if (member) {
          throw conflict('ALREADY_MEMBER', 'This person is already a member; change their role instead');
        }
        const existing = await repo.findInvitation(organisationId, invitee);
        if (existing) assertCanManage(membership.role, existing.role, input.role);
        if (!counted) {
          counted = true;
          await limitInvitations(actor.userId, organisationId);
        }
        // One reading of the clock: the lifetime is exactly what it says.
        const invitedAt = Date.now();
        const values = {
          organisationId,
          role: input.role,
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
      });
    try {
      return await attempt();
    } catch (error) {
      // A concurrent invitation of the same person was inserted first: this one renews it.
      if (isUniqueViolation(error)) return attempt();
      throw error;
    }
  }

  return {
    /** Active members, then invitations (which show nothing about the invited person). */
    async listMembers(actor: Actor, organisationId: number): Promise<MemberListEntry[]> {
      await access.requireMembership(actor, organisationId, { can: 'listMembers' });
      const repo = repoFor(db.kysely);
      const [members, invitations] = await Promise.all([
        repo.listMembers(organisationId),
        repo.listInvitations(organisationId),
      ]);
      return [...members, ...invitations];
    },

    /** Invites a person as MEMBER (OWNER, ADMIN); see `invite`. */
    addMember(actor: Actor, organisationId: number, input: AddMemberInput) {
      return invite(actor, organisationId, { ...input, role: 'MEMBER' });
    },

    /** Invites a person with a role (OWNER; ADMIN for MANAGER and MEMBER); see `invite`. */
    assignMember: invite,

    /** Withdraws an invitation, by account or by email (OWNER; ADMIN for MANAGER and MEMBER ones). */
    async withdrawInvitation(actor: Actor, organisationId: number, invitationId: number): Promise<void> {
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

    /**
     * The actor's open invitations to active organisations they do not belong to yet,
     * newest first; one per organisation (an invitation by account and one by email
     * show as the newer of the two).
     */
    async listInvitations(actor: Actor): Promise<ReceivedInvitation[]> {
      const repo = repoFor(db.kysely);
      const received = await repo.listReceivedInvitations(await personOf(repo, actor.userId), nowIso());
      const newest = new Map<number, ReceivedInvitation>();
      for (const invitation of received) {
        if (!newest.has(invitation.organisationId)) newest.set(invitation.organisationId, invitation);
      }
      return [...newest.values()];
    },

    /**
     * Accepts the actor's invitation: they become a member with its role (recorded as
     * assigned by the inviter), and it becomes their active organisation when they have
     * none. 404 without an invitation (or for an archived organisation); 410
     * INVITE_EXPIRED once it lapsed; an OWNER invitation at the plan limit 403
     * PLAN_LIMIT_REACHED (the invitation stays, to accept after archiving one).
     */
    async acceptInvitation(actor: Actor, organisationId: number): Promise<MemberOrganisation> {
      return inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        // The user's row lock: two acceptances of one person take turns (the plan limit).
        const user = await repo.lockUser(actor.userId);
        if (!user) throw notFound('User');
        const person = { userId: actor.userId, email: user.emailVerified ? user.email : null };
        const invitations = await repo.invitationsOf(organisationId, person);
        if (invitations.length === 0 || !(await repo.isActiveOrganisation(organisationId))) {
          // An invitation to the address waits until the address is proved theirs.
          const waiting =
            person.email === null &&
            (await repo.invitationsOf(organisationId, { ...person, email: user.email })).length > 0 &&
            (await repo.isActiveOrganisation(organisationId));
          if (waiting)
            throw new DomainError(
              'EMAIL_NOT_VERIFIED',
              'Verify your email address first: an invitation sent to it can be accepted only then',
            );
          throw notFound('Invitation');
        }
        const now = nowIso();
        if (!(await repo.findMembership(organisationId, actor.userId))) {
          const open = invitations.find((invitation) => Date.parse(invitation.expiresAt) > Date.parse(now));
          if (!open) {
            throw conflict('INVITE_EXPIRED', 'The invitation has expired; ask for a new one');
          }
          if (open.role === 'OWNER') await assertBelowPlanLimit(repo, actor.userId);
          await repo.insertMembership({
            organisationId,
            userId: actor.userId,
            role: open.role,
            assignedById: open.invitedById,
            now,
          });
          await repo.setActiveIfNone(actor.userId, organisationId, now);
          const member = await repo.findMember(organisationId, actor.userId);
          await events.append(trx, [
            {
              type: 'membership.accepted',
              occurredAt: now,
              organisationId,
              userId: actor.userId,
              data: member,
            },
          ]);
        }
        // Every invitation that reached the person here is used up (a member already: left over).
        await repo.deleteInvitationsOf(organisationId, person);
        const membership = await repo.findForMember(organisationId, actor.userId);
        if (!membership) throw notFound('Invitation');
        return viewOf(membership);
      });
    },

    /** Declines (deletes) the actor's invitations to the organisation; 404 when there are none. */
    async declineInvitation(actor: Actor, organisationId: number): Promise<void> {
      const repo = repoFor(db.kysely);
      const declined = await repo.deleteInvitationsOf(organisationId, await personOf(repo, actor.userId));
      if (declined === 0) throw notFound('Invitation');
    },

    /**
     * Changes a member's role under the role matrix; 404 when the user is not a member.
     * Making them OWNER counts against their plan (403 PLAN_LIMIT_REACHED at its limit).
     */
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
        // Ownership counts against the member's plan: never beyond it without them.
        else await assertBelowPlanLimit(repo, userId, "The member's");
        await repo.updateMembershipRole({ organisationId, userId, role, assignedById: actor.userId, now });
        return requireMember(repo, organisationId, userId);
      });
    },

    /**
     * Removes a member (OWNER; ADMIN for MANAGER and MEMBER), or withdraws the
     * invitation of that user id under the same rules. Every member may remove
     * themselves (leave). The last OWNER cannot go. The organisation stops being the
     * removed user's active one.
     */
    async removeMember(actor: Actor, organisationId: number, userId: number): Promise<void> {
      const now = nowIso();
      await inTransaction(db.kysely, async (trx) => {
        const repo = repoFor(trx);
        const leaving = userId === actor.userId;
        const membership = await access.requireMembership(
          actor,
          organisationId,
          { ownMembership: leaving },
          trx,
        );
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
        await deps.memberRemoved(trx, { organisationId, userId });
      });
    },
  };
}
