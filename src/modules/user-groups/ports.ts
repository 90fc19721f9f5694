import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read of the user-group tables, as query fragments they
 * compose into their own statements (so a read stays one statement and the tables stay here).
 */

/**
 * The calendars shared into the groups `readerId` is in (only `groupIds` of them when given),
 * each with every member of the group it is shared in (`memberId`): a share lets the reader
 * see a calendar only while its owner is one of them, which the consumer matches.
 */
export function calendarSharesSeenBy(db: Executor, readerId: number, groupIds?: readonly number[]) {
  return db
    .selectFrom('userGroupMembers as m')
    .innerJoin('userGroupCalendars as gc', 'gc.groupId', 'm.groupId')
    .innerJoin('userGroupMembers as om', 'om.groupId', 'gc.groupId')
    .select(['gc.calendarId', 'om.userId as memberId'])
    .where('m.userId', '=', readerId)
    .$if(groupIds !== undefined, (qb) => qb.where('m.groupId', 'in', groupIds!));
}

/** The ids of the groups `userId` is a member of (only `groupIds` of them when given). */
export function memberGroupIds(db: Executor, userId: number, groupIds?: readonly number[]) {
  return db
    .selectFrom('userGroupMembers')
    .select('userGroupMembers.groupId')
    .where('userGroupMembers.userId', '=', userId)
    .$if(groupIds !== undefined, (qb) => qb.where('userGroupMembers.groupId', 'in', groupIds!));
}
