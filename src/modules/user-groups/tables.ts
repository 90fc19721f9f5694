import type { Id, Timestamp } from '../../db/column-types.js';

export type UserGroupRole = 'owner' | 'member';

export interface UserGroupsTable {
  id: Id;
  name: string;
  ownerId: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface UserGroupMembersTable {
  id: Id;
  groupId: number;
  userId: number;
  role: UserGroupRole;
  createdAt: Timestamp;
}

/** A calendar shared with a group: every member may read its events. */
export interface UserGroupCalendarsTable {
  id: Id;
  groupId: number;
  calendarId: number;
  createdAt: Timestamp;
}

export interface UserGroupInvitesTable {
  id: Id;
  groupId: number;
  /** SHA-256 of the token; the token itself is shown once and never stored. */
  tokenHash: string;
  createdBy: number;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
  usedBy: number | null;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface UserGroupTables {
  userGroups: UserGroupsTable;
  userGroupMembers: UserGroupMembersTable;
  userGroupCalendars: UserGroupCalendarsTable;
  userGroupInvites: UserGroupInvitesTable;
}
