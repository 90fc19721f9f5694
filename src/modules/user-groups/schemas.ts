import { z } from 'zod';
import { entityId, positiveId } from '../../http/schemas.js';

export const INVITE_DEFAULT_HOURS = 168;
export const INVITE_MAX_HOURS = 720;

export const groupRole = z.enum(['owner', 'member']);

const name = z.string().trim().min(1).max(200);

export const createGroupBody = z.strictObject({ name });
export type CreateGroupInput = z.infer<typeof createGroupBody>;

export const updateGroupBody = z.strictObject({
  name: name.optional(),
  ownerId: entityId.optional().describe('Hand the group to another member; you stay as a member'),
});
export type UpdateGroupInput = z.infer<typeof updateGroupBody>;

export const groupSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  ownerId: z.number().int(),
  role: groupRole.describe('Your role in the group'),
  memberCount: z.number().int(),
  createdAt: z.string(),
});
export type GroupSummary = z.infer<typeof groupSummary>;

export const groupMember = z.object({ userId: z.number().int(), name: z.string(), role: groupRole });
export const groupCalendar = z.object({
  calendarId: z.number().int(),
  name: z.string(),
  ownerId: z.number().int(),
});

export const groupDetails = z.object({
  id: z.number().int(),
  name: z.string(),
  ownerId: z.number().int(),
  members: z.array(groupMember),
  calendars: z
    .array(groupCalendar)
    .describe('Calendars shared with the group; every member may read their events'),
});
export type GroupDetails = z.infer<typeof groupDetails>;

export const createInviteBody = z.strictObject({
  expiresInHours: z
    .number()
    .int()
    .min(1)
    .max(INVITE_MAX_HOURS)
    .optional()
    .describe(`Default ${INVITE_DEFAULT_HOURS} (7 days)`),
});
export type CreateInviteInput = z.infer<typeof createInviteBody>;

export const invite = z
  .object({
    token: z.string().describe('Single use; shown only in this response'),
    expiresAt: z.string(),
    groupName: z.string(),
  })
  .describe('Says nothing about the members');
export type Invite = z.infer<typeof invite>;

export const acceptInviteBody = z.strictObject({ token: z.string().trim().min(1).max(200) });

export const calendarIdsBody = z.strictObject({
  calendarIds: z.array(entityId).min(1).max(100).describe('Calendars you own'),
});

export const memberParams = z.strictObject({ id: positiveId, userId: positiveId });
