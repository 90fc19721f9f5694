import type { Executor } from '../../db/database.js';
import { userNames } from '../auth/ports.js';
import { calendarNames, ownedCalendarIds } from '../calendars/ports.js';
import type { GroupSummary } from './schemas.js';
import type { UserGroupRole } from './tables.js';

export interface GroupRow {
  id: number;
  name: string;
  ownerId: number;
}

export interface Membership extends GroupRow {
  role: UserGroupRole;
}

export function createUserGroupRepo(db: Executor) {
  return {
    /** Creates the group with its owner as the first member. */
    async insert(name: string, ownerId: number, now: string): Promise<number> {
      const { id } = await db
        .insertInto('userGroups')
        .values({ name, ownerId, createdAt: now, updatedAt: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('userGroupMembers')
        .values({ groupId: id, userId: ownerId, role: 'owner', createdAt: now })
        .execute();
      return id;
    },

    /** The user's groups (within `groupIds` when given), with member counts: one query. */
    async listForUser(userId: number, groupIds?: readonly number[]): Promise<GroupSummary[]> {
      const rows = await db
        .selectFrom('userGroupMembers as mine')
        .innerJoin('userGroups as g', 'g.id', 'mine.groupId')
        .select((eb) => [
          'g.id',
          'g.name',
          'g.ownerId',
          'mine.role',
          'g.createdAt',
          eb
            .selectFrom('userGroupMembers as everyone')
            .select(eb.fn.countAll().as('n'))
            .whereRef('everyone.groupId', '=', 'g.id')
            .as('memberCount'),
        ])
        .where('mine.userId', '=', userId)
        .$if(groupIds !== undefined, (qb) => qb.where('g.id', 'in', groupIds!))
        .orderBy('g.name')
        .orderBy('g.id')
        .execute();
      return rows.map((row) => ({ ...row, memberCount: Number(row.memberCount ?? 0) }));
    },

    findGroup(groupId: number): Promise<GroupRow | undefined> {
      return db
        .selectFrom('userGroups')
        .select(['id', 'name', 'ownerId'])
        .where('id', '=', groupId)
        .executeTakeFirst();
    },

    /** The group with the user's role in it, when they are a member. */
    findMembership(groupId: number, userId: number): Promise<Membership | undefined> {
      return db
        .selectFrom('userGroups as g')
        .innerJoin('userGroupMembers as m', 'm.groupId', 'g.id')
        .select(['g.id', 'g.name', 'g.ownerId', 'm.role'])
        .where('g.id', '=', groupId)
        .where('m.userId', '=', userId)
        .executeTakeFirst();
    },

    /** Members with their names only (no emails): the owner first, then by name. */
    listMembers(groupId: number) {
      return db
        .selectFrom('userGroupMembers as m')
        .innerJoin(userNames(db).as('u'), 'u.id', 'm.userId')
        .select(['m.userId', 'u.name', 'm.role'])
        .where('m.groupId', '=', groupId)
        .orderBy('m.role', 'desc')
        .orderBy('u.name')
        .orderBy('m.userId')
        .execute();
    },

    listCalendars(groupId: number) {
      return (
        db
          .selectFrom('userGroupCalendars as gc')
          .innerJoin(calendarNames(db).as('c'), 'c.id', 'gc.calendarId')
          // A share counts only while the calendar's owner is a member (see calendars repo).
          .innerJoin('userGroupMembers as om', (join) =>
            join.onRef('om.groupId', '=', 'gc.groupId').onRef('om.userId', '=', 'c.ownerId'),
          )
          .select(['gc.calendarId', 'c.name', 'c.ownerId'])
          .where('gc.groupId', '=', groupId)
          .orderBy('c.name')
          .orderBy('gc.calendarId')
          .execute()
      );
    },

    async rename(groupId: number, name: string, now: string): Promise<void> {
      await db.updateTable('userGroups').set({ name, updatedAt: now }).where('id', '=', groupId).execute();
    },

    /** Hands the group to another member; the previous owner stays as a member. */
    async transferOwnership(groupId: number, fromUserId: number, toUserId: number, now: string) {
      await db
        .updateTable('userGroups')
        .set({ ownerId: toUserId, updatedAt: now })
        .where('id', '=', groupId)
        .execute();
      await db
        .updateTable('userGroupMembers')
        .set({ role: 'member' })
        .where('groupId', '=', groupId)
        .where('userId', '=', fromUserId)
        .execute();
      await db
        .updateTable('userGroupMembers')
        .set({ role: 'owner' })
        .where('groupId', '=', groupId)
        .where('userId', '=', toUserId)
        .execute();
    },

    async delete(groupId: number): Promise<void> {
      // Members, shared calendars and invites go with it (foreign keys cascade).
      await db.deleteFrom('userGroups').where('id', '=', groupId).execute();
    },

    findRole(groupId: number, userId: number) {
      return db
        .selectFrom('userGroupMembers')
        .select('role')
        .where('groupId', '=', groupId)
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    async insertMember(groupId: number, userId: number, role: UserGroupRole, now: string): Promise<void> {
      await db.insertInto('userGroupMembers').values({ groupId, userId, role, createdAt: now }).execute();
    },

    /** Removes a member and takes their calendars out of the group. */
    async removeMember(groupId: number, userId: number): Promise<void> {
      await db
        .deleteFrom('userGroupCalendars')
        .where('groupId', '=', groupId)
        .where('calendarId', 'in', ownedCalendarIds(db, userId))
        .execute();
      await db
        .deleteFrom('userGroupMembers')
        .where('groupId', '=', groupId)
        .where('userId', '=', userId)
        .execute();
    },

    /** Shares calendars with the group; ones already shared stay as they are. */
    async attach(groupId: number, calendarIds: readonly number[], now: string): Promise<void> {
      await db
        .insertInto('userGroupCalendars')
        .values(calendarIds.map((calendarId) => ({ groupId, calendarId, createdAt: now })))
        .onConflict((oc) => oc.columns(['groupId', 'calendarId']).doNothing())
        .execute();
    },

    async detach(groupId: number, calendarIds: readonly number[]): Promise<void> {
      await db
        .deleteFrom('userGroupCalendars')
        .where('groupId', '=', groupId)
        .where('calendarId', 'in', calendarIds)
        .execute();
    },

    async insertInvite(values: {
      groupId: number;
      tokenHash: string;
      createdBy: number;
      expiresAt: string;
      now: string;
    }): Promise<void> {
      const { now, ...invite } = values;
      await db
        .insertInto('userGroupInvites')
        .values({ ...invite, createdAt: now })
        .execute();
    },

    findInviteByHash(tokenHash: string) {
      return db
        .selectFrom('userGroupInvites')
        .select(['id', 'groupId', 'expiresAt', 'usedAt'])
        .where('tokenHash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** Marks the invite used if it still is not; answers whether this call did (single use under races). */
    async useInvite(id: number, userId: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('userGroupInvites')
        .set({ usedAt: now, usedBy: userId })
        .where('id', '=', id)
        .where('usedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
