import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import {
  acceptInviteBody,
  calendarIdsBody,
  createInviteBody,
  groupDetails,
  groupSummary,
  invite,
} from './schemas.js';
import type { UserGroupService } from './service.js';

const groupRef = { groupId: entityId };

/** MCP tools of people groups: the owner's groups through the user-group service, within the agent's group scope. */
export const userGroupTools = [
  defineTool({
    actionKey: 'calendar.userGroups.list',
    title: 'List people groups',
    description: 'The people groups you belong to, with your role in each and the member count.',
    catalogue: {
      description: 'The people groups the owner belongs to.',
      risk: 'read',
      scopeKinds: ['userGroup'],
    },
    input: z.strictObject({}),
    output: z.object({ groups: z.array(groupSummary) }),
    run: async (userGroups: UserGroupService, actor) => ({ groups: await userGroups.list(actor) }),
  }),
  defineTool({
    actionKey: 'calendar.userGroups.details',
    title: 'People group details',
    description:
      'One group you belong to: its members (names and roles) and the calendars shared with it, whose events every member may read.',
    catalogue: {
      description: 'Members and shared calendars of one group.',
      risk: 'read',
      scopeKinds: ['userGroup'],
    },
    input: z.strictObject(groupRef),
    output: groupDetails,
    run: (userGroups: UserGroupService, actor, { groupId }) => userGroups.details(actor, groupId),
  }),
  defineTool({
    actionKey: 'calendar.userGroups.createInvite',
    title: 'Create group invite',
    description:
      'A single-use invite token for a group you own (owner only), valid 7 days unless expiresInHours says otherwise (at most 720). The token is shown only in this answer.',
    catalogue: {
      description: 'A single-use invite token for a group the owner owns; names no member.',
      risk: 'write',
      scopeKinds: ['userGroup'],
    },
    input: z.strictObject({ ...groupRef, ...createInviteBody.shape }),
    output: invite,
    run: (userGroups: UserGroupService, actor, { groupId, ...input }) =>
      userGroups.createInvite(actor, groupId, input),
  }),
  defineTool({
    actionKey: 'calendar.userGroups.acceptInvite',
    title: 'Accept group invite',
    description:
      'Joins the group of an invite token and answers its details. A used token fails with INVITE_ALREADY_USED, an expired one with INVITE_EXPIRED.',
    catalogue: {
      description: 'Joins the group of an invite token.',
      risk: 'write',
      scopeKinds: ['userGroup'],
    },
    input: acceptInviteBody,
    output: groupDetails,
    run: (userGroups: UserGroupService, actor, { token }) => userGroups.acceptInvite(actor, token),
  }),
  defineTool({
    actionKey: 'calendar.userGroups.attachCalendars',
    title: 'Share calendars with group',
    description:
      'Shares calendars you own with a group you belong to (1 to 100 calendar ids, all or nothing); every member may then read their events.',
    catalogue: {
      description: 'Shares own calendars with a group.',
      risk: 'write',
      scopeKinds: ['userGroup', 'calendar'],
    },
    input: z.strictObject({ ...groupRef, ...calendarIdsBody.shape }),
    output: groupDetails,
    run: (userGroups: UserGroupService, actor, { groupId, calendarIds }) =>
      userGroups.attachCalendars(actor, groupId, calendarIds),
  }),
  defineTool({
    actionKey: 'calendar.userGroups.detachCalendars',
    title: 'Unshare calendars from group',
    description:
      'Stops sharing calendars you own with a group (1 to 100 calendar ids); ones not shared are ignored.',
    catalogue: {
      description: 'Stops sharing own calendars with a group.',
      risk: 'write',
      scopeKinds: ['userGroup', 'calendar'],
    },
    input: z.strictObject({ ...groupRef, ...calendarIdsBody.shape }),
    output: groupDetails,
    run: (userGroups: UserGroupService, actor, { groupId, calendarIds }) =>
      userGroups.detachCalendars(actor, groupId, calendarIds),
  }),
];
