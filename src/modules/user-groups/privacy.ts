import type { Executor } from '../../db/database.js';
import {
  bool,
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';
import { ownedCalendarIds } from '../calendars/ports.js';

const held = (db: Executor, { userId }: DataSubject) => ({
  groups: db.selectFrom('userGroups').where('userGroups.ownerId', '=', userId),
  memberships: db.selectFrom('userGroupMembers').where('userGroupMembers.userId', '=', userId),
  sharedCalendars: db
    .selectFrom('userGroupCalendars')
    .where('userGroupCalendars.calendarId', 'in', ownedCalendarIds(db, userId)),
  invites: db
    .selectFrom('userGroupInvites')
    .where((eb) =>
      eb.or([eb('userGroupInvites.createdBy', '=', userId), eb('userGroupInvites.usedBy', '=', userId)]),
    ),
});

/**
 * People groups. Erasure deletes the groups the person owns (with their members,
 * invites and calendar shares; items shared with them become private to whoever
 * created each), takes the person out of the other groups with their calendars,
 * deletes the invites they made and clears "used by" on the ones they accepted.
 */
export const userGroupsPrivacy: PrivacyDeclaration = {
  module: 'user-groups',
  tables: {
    user_groups: personal('groups', 'groups you own are deleted'),
    user_group_members: personal('groups', 'deleted'),
    user_group_calendars: personal('groups', 'shares of your calendars are deleted'),
    user_group_invites: personal('groups', 'invites you made are deleted; "used by" you is cleared'),
  },
  categories: [
    {
      id: 'groups',
      label: 'People groups you own or belong to, calendars you share with them, invites',
      purpose: 'Sharing calendars and household items with the people you choose',
      retention: 'While the group exists and you belong to it; until your account is erased',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      user_groups: await countOf(q.groups),
      user_group_members: await countOf(q.memberships),
      user_group_calendars: await countOf(q.sharedCalendars),
      user_group_invites: await countOf(q.invites),
    };
  },
  exports: [
    exportSection({
      name: 'peopleGroupsOwned',
      table: 'user_groups',
      key: ['userGroups.id'],
      rows: (db, s) => held(db, s).groups.select(['userGroups.id', 'name', 'createdAt', 'updatedAt']),
    }),
    exportSection({
      name: 'peopleGroupMemberships',
      table: 'user_group_members',
      key: ['userGroupMembers.id'],
      rows: (db, s) =>
        held(db, s)
          .memberships.innerJoin('userGroups', 'userGroups.id', 'userGroupMembers.groupId')
          .select([
            'userGroupMembers.id',
            'userGroupMembers.groupId',
            'userGroups.name as groupName',
            'userGroupMembers.role',
            'userGroupMembers.createdAt as joinedAt',
          ]),
    }),
    exportSection({
      name: 'peopleGroupCalendarShares',
      table: 'user_group_calendars',
      key: ['userGroupCalendars.id'],
      rows: (db, s) =>
        held(db, s).sharedCalendars.select([
          'userGroupCalendars.id',
          'userGroupCalendars.groupId',
          'userGroupCalendars.calendarId',
          'userGroupCalendars.createdAt',
        ]),
    }),
    exportSection({
      name: 'peopleGroupInvites',
      table: 'user_group_invites',
      key: ['userGroupInvites.id'],
      // Never the token hash, nor who else used an invite: only whether the person did.
      rows: (db, s) =>
        held(db, s).invites.select((eb) => [
          'userGroupInvites.id',
          'userGroupInvites.groupId',
          eb('userGroupInvites.createdBy', '=', s.userId).as('createdByYou'),
          eb('userGroupInvites.usedBy', '=', s.userId).as('usedByYou'),
          'userGroupInvites.expiresAt',
          'userGroupInvites.usedAt',
          'userGroupInvites.createdAt',
        ]),
      record: (row) => ({ ...row, createdByYou: bool(row.createdByYou), usedByYou: bool(row.usedByYou) }),
    }),
  ],
  async erase(trx, subject) {
    const { userId } = subject;
    const groups = await trx.deleteFrom('userGroups').where('ownerId', '=', userId).executeTakeFirst();
    const memberships = await trx
      .deleteFrom('userGroupMembers')
      .where('userId', '=', userId)
      .executeTakeFirst();
    const shares = await trx
      .deleteFrom('userGroupCalendars')
      .where('calendarId', 'in', ownedCalendarIds(trx, userId))
      .executeTakeFirst();
    const made = await trx.deleteFrom('userGroupInvites').where('createdBy', '=', userId).executeTakeFirst();
    const used = await trx
      .updateTable('userGroupInvites')
      .set({ usedBy: null })
      .where('usedBy', '=', userId)
      .executeTakeFirst();
    return {
      user_groups: changed(groups),
      user_group_members: changed(memberships),
      user_group_calendars: changed(shares),
      user_group_invites: changed(made) + changed(used),
    };
  },
};
