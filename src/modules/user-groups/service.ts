import { type Db, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { type Actor, calendarInScope, groupInScope, groupScope } from '../../lib/actor.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { conflict, DomainError, forbidden, notFound, validationFailed } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { CalendarService } from '../calendars/service.js';
import { createUserGroupRepo, type GroupRow, type Membership } from './repo.js';
import {
  type CreateGroupInput,
  type CreateInviteInput,
  type GroupDetails,
  type GroupSummary,
  INVITE_DEFAULT_HOURS,
  type Invite,
  type UpdateGroupInput,
} from './schemas.js';

const ownerOnly = (what: string) => forbidden(`Only the owner of the group can ${what}`);

export type UserGroupService = ReturnType<typeof createUserGroupService>;

/**
 * People groups (`calendar.userGroups.*`): a named set of users with one owner.
 * Members see each other's names and the calendars shared with the group, and
 * can read those calendars' events; nothing else of each other's.
 *
 * Agent scope: `groupIds` limits the groups (anything else answers 404, and a
 * group-limited agent cannot create groups); `calendarIds` limits the shared
 * calendars a group's details list and which own calendars may be attached or detached.
 */
export function createUserGroupService({ db, calendars }: { db: Db; calendars: CalendarService }) {
  const repo = createUserGroupRepo(db.kysely);

  /** The actor's membership of a group in their scope; 404 for anything else. */
  async function membership(actor: Actor, groupId: number): Promise<Membership> {
    const found = groupInScope(actor, groupId) ? await repo.findMembership(groupId, actor.userId) : undefined;
    if (!found) throw notFound('Group');
    return found;
  }

  async function ownership(actor: Actor, groupId: number, what: string): Promise<Membership> {
    const found = await membership(actor, groupId);
    if (found.role !== 'owner') throw ownerOnly(what);
    return found;
  }

  /**
   * Members and shared calendars of a group already read: two queries whatever the size.
   * Calendars outside the actor's calendar scope are left out, as if not shared.
   */
  async function detailsOf(actor: Actor, group: GroupRow): Promise<GroupDetails> {
    const [members, shared] = await Promise.all([repo.listMembers(group.id), repo.listCalendars(group.id)]);
    return {
      id: group.id,
      name: group.name,
      ownerId: group.ownerId,
      members,
      calendars: shared.filter((calendar) => calendarInScope(actor, calendar.calendarId)),
    };
  }

  async function detailsById(actor: Actor, groupId: number): Promise<GroupDetails> {
    const group = await repo.findGroup(groupId);
    if (!group) throw notFound('Group');
    return detailsOf(actor, group);
  }

  async function removeMember(groupId: number, userId: number) {
    await inTransaction(db.kysely, (trx) => createUserGroupRepo(trx).removeMember(groupId, userId));
  }

  /**
   * Leaving takes the member's calendars out of the group. The owner cannot leave
   * (409 CONFLICT): they hand the group to another member first, or delete it.
   */
  async function leave(actor: Actor, groupId: number): Promise<void> {
    const group = await membership(actor, groupId);
    if (group.role === 'owner')
      throw conflict(
        'CONFLICT',
        'The owner cannot leave the group; make another member its owner or delete it',
      );
    await removeMember(groupId, actor.userId);
  }

  return {
    list(actor: Actor): Promise<GroupSummary[]> {
      const groupIds = groupScope(actor);
      if (groupIds?.length === 0) return Promise.resolve([]);
      return repo.listForUser(actor.userId, groupIds);
    },

    async details(actor: Actor, groupId: number): Promise<GroupDetails> {
      return detailsOf(actor, await membership(actor, groupId));
    },

    async create(actor: Actor, input: CreateGroupInput): Promise<GroupDetails> {
      if (groupScope(actor) !== undefined)
        throw forbidden('This access is limited to particular groups and cannot create new ones');
      const id = await inTransaction(db.kysely, (trx) =>
        createUserGroupRepo(trx).insert(input.name, actor.userId, nowIso()),
      );
      return detailsById(actor, id);
    },

    /** Renames the group and/or hands it to another member (owner only). */
    async update(actor: Actor, groupId: number, input: UpdateGroupInput): Promise<GroupDetails> {
      const group = await ownership(actor, groupId, 'change it');
      const newOwner =
        input.ownerId !== undefined && input.ownerId !== group.ownerId ? input.ownerId : undefined;
      if (newOwner !== undefined && !(await repo.findRole(groupId, newOwner)))
        throw validationFailed('The new owner must be a member of the group', [
          { path: 'ownerId', message: 'must be a member of the group' },
        ]);
      await inTransaction(db.kysely, async (trx) => {
        const groups = createUserGroupRepo(trx);
        const now = nowIso();
        if (input.name !== undefined) await groups.rename(groupId, input.name, now);
        if (newOwner !== undefined) await groups.transferOwnership(groupId, actor.userId, newOwner, now);
      });
      return detailsById(actor, groupId);
    },

    async delete(actor: Actor, groupId: number): Promise<void> {
      await ownership(actor, groupId, 'delete it');
      await repo.delete(groupId);
    },

    leave,

    /** Whether the user is a member of the group, whatever their role (no actor, no scope). */
    async isMember(groupId: number, userId: number): Promise<boolean> {
      return (await repo.findRole(groupId, userId)) !== undefined;
    },

    /** The owner removes a member (their calendars leave the group with them); removing yourself is leaving. */
    async removeMember(actor: Actor, groupId: number, userId: number): Promise<void> {
      if (userId === actor.userId) return leave(actor, groupId);
      await ownership(actor, groupId, 'remove members');
      if (!(await repo.findRole(groupId, userId))) throw notFound('Member');
      await removeMember(groupId, userId);
    },

    /** A single-use invite token (owner only). Only its hash is stored; the answer names no member. */
    async createInvite(actor: Actor, groupId: number, input: CreateInviteInput = {}): Promise<Invite> {
      const group = await ownership(actor, groupId, 'invite people');
      const token = randomToken();
      const expiresAt = isoAfterSeconds((input.expiresInHours ?? INVITE_DEFAULT_HOURS) * 3600);
      await repo.insertInvite({
        groupId,
        tokenHash: sha256(token),
        createdBy: actor.userId,
        expiresAt,
        now: nowIso(),
      });
      return { token, expiresAt, groupName: group.name };
    },

    /**
     * Joins the group of an invite. A used invite is 409 INVITE_ALREADY_USED, an
     * expired one 410 INVITE_EXPIRED. Someone already in the group gets its details
     * and the invite stays unused for the person it was meant for.
     */
    async acceptInvite(actor: Actor, token: string): Promise<GroupDetails> {
      const invite = await repo.findInviteByHash(sha256(token));
      if (!invite || !groupInScope(actor, invite.groupId)) throw notFound('Invite');
      if (invite.usedAt) throw conflict('INVITE_ALREADY_USED', 'This invite has already been used');
      const now = nowIso();
      if (invite.expiresAt <= now) throw new DomainError('INVITE_EXPIRED', 'This invite has expired');
      if (await repo.findRole(invite.groupId, actor.userId)) return detailsById(actor, invite.groupId);
      try {
        await inTransaction(db.kysely, async (trx) => {
          const groups = createUserGroupRepo(trx);
          if (!(await groups.useInvite(invite.id, actor.userId, now)))
            throw conflict('INVITE_ALREADY_USED', 'This invite has already been used');
          await groups.insertMember(invite.groupId, actor.userId, 'member', now);
        });
      } catch (error) {
        // Joined meanwhile through another invite: the transaction (and this invite's use) rolled back.
        if (!isUniqueViolation(error)) throw error;
      }
      return detailsById(actor, invite.groupId);
    },

    /** Shares calendars the actor owns with a group they belong to; all or nothing (404 naming none). */
    async attachCalendars(
      actor: Actor,
      groupId: number,
      calendarIds: readonly number[],
    ): Promise<GroupDetails> {
      const group = await membership(actor, groupId);
      const owned = await calendars.requireOwnedMany(actor, calendarIds);
      if (owned.length > 0)
        await repo.attach(
          groupId,
          owned.map((calendar) => calendar.id),
          nowIso(),
        );
      return detailsOf(actor, group);
    },

    /** Stops sharing calendars the actor owns with the group; ones not shared are ignored. */
    async detachCalendars(
      actor: Actor,
      groupId: number,
      calendarIds: readonly number[],
    ): Promise<GroupDetails> {
      const group = await membership(actor, groupId);
      const owned = await calendars.requireOwnedMany(actor, calendarIds);
      if (owned.length > 0)
        await repo.detach(
          groupId,
          owned.map((calendar) => calendar.id),
        );
      return detailsOf(actor, group);
    },
  };
}
