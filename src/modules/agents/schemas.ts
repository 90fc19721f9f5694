import { z } from 'zod';
import { entityId, pageQuery, positiveId } from '../../http/schemas.js';

/** The built-in permission groups (their contents: src/catalogue.ts). */
export const PERMISSION_GROUP_IDS = [
  'minimal',
  'all_read_only',
  'calendar_only',
  'tasks_and_routines',
  'reservations_operator',
  'automation_manager',
  'household_manager',
  'operational_read_write',
  'full_mcp_admin',
] as const;
export type PermissionGroupId = (typeof PERMISSION_GROUP_IDS)[number];

export const AGENT_NAME_MAX = 200;
export const AGENT_DESCRIPTION_MAX = 2000;
/** Most permissions one agent carries (the catalogue is smaller; this bounds a hostile body). */
const PERMISSIONS_MAX = 200;
/** Most ids one scope names. */
const SCOPE_IDS_MAX = 500;

export const agentStatus = z.enum(['active', 'paused', 'disabled']);
export type AgentStatusValue = z.infer<typeof agentStatus>;

const name = z.string().trim().min(1).max(AGENT_NAME_MAX);
const description = z
  .string()
  .trim()
  .max(AGENT_DESCRIPTION_MAX)
  .nullable()
  .transform((value) => value || null)
  .describe('"" or null for none');
export const permissionGroupId = z
  .enum(PERMISSION_GROUP_IDS)
  .describe('A built-in permission group (GET /api/agents/permission-groups)');

export const createAgentBody = z.strictObject({
  name,
  description: description.optional(),
  permissionGroupId: permissionGroupId
    .optional()
    .describe('Permissions to start with; none: the agent can only read its own profile'),
});
export type CreateAgentInput = z.infer<typeof createAgentBody>;

export const updateAgentBody = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  status: z
    .enum(['active', 'paused'])
    .optional()
    .describe('Pause or resume; a disabled agent (DELETE) cannot be revived'),
});
export type UpdateAgentInput = z.infer<typeof updateAgentBody>;

/** Narrows one permission: absent kinds are unrestricted, an empty array allows none. */
export const accessScope = z.strictObject({
  calendarIds: z.array(entityId).max(SCOPE_IDS_MAX).optional().describe('Only these calendars of yours'),
  groupIds: z.array(entityId).max(SCOPE_IDS_MAX).optional().describe('Only these people groups of yours'),
});
export type AccessScopeInput = z.infer<typeof accessScope>;

export const permissionInput = z.strictObject({
  actionKey: z.string().min(1).max(100).describe('A key of GET /api/agents/catalog'),
  scope: accessScope.nullable().optional().describe('null or absent: within your own rights'),
});
export type PermissionInput = z.infer<typeof permissionInput>;

export const updatePermissionsBody = z
  .strictObject({
    permissionGroupId: permissionGroupId.optional(),
    permissions: z.array(permissionInput).max(PERMISSIONS_MAX).optional(),
  })
  .refine((body) => (body.permissionGroupId === undefined) !== (body.permissions === undefined), {
    message: 'give either permissionGroupId or permissions, not both and not neither',
  });
export type UpdatePermissionsInput = z.infer<typeof updatePermissionsBody>;

export const permission = z.object({
  actionKey: z.string(),
  scope: z
    .object({
      calendarIds: z.array(z.number().int()).optional(),
      groupIds: z.array(z.number().int()).optional(),
    })
    .nullable(),
});
export type Permission = z.infer<typeof permission>;

export const agent = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  status: agentStatus,
  permissionGroupId: z.string().nullable().describe('null when the permissions were set explicitly'),
  permissions: z.array(permission),
  oauthClientId: z.string().nullable().describe('The OAuth client that created the agent, if any'),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type Agent = z.infer<typeof agent>;

export const createAgentKeyBody = z.strictObject({
  label: z.string().trim().min(1).max(100),
});

export const agentKeyParams = z.strictObject({ id: positiveId, keyId: positiveId });

export const agentKey = z.object({
  id: z.number().int(),
  label: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type AgentKey = z.infer<typeof agentKey>;

export const createdAgentKey = z.object({
  id: z.number().int(),
  label: z.string(),
  prefix: z.string(),
  key: z.string().describe('Shown only in this response'),
  createdAt: z.string(),
  mcpUrl: z.string().describe('Where the agent connects with this key: <PUBLIC_URL>/api/mcp'),
});
export type CreatedAgentKey = z.infer<typeof createdAgentKey>;

const activityInstant = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value).toISOString())
  .describe('ISO 8601 instant with offset');

export const activityQuery = z
  .strictObject({
    ...pageQuery,
    actionKey: z.string().min(1).max(200).optional().describe('Only calls of this action key'),
    outcome: z
      .enum(['ok', 'error'])
      .optional()
      .describe('Only calls that succeeded (ok) or were refused (error)'),
    from: activityInstant.optional().describe('Only calls made at or after this instant'),
    to: activityInstant.optional().describe('Only calls made before this instant'),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.to) > Date.parse(q.from), {
    message: 'must be after from',
    path: ['to'],
  });
export type ActivityQuery = z.infer<typeof activityQuery>;

export const activityItem = z.object({
  id: z.number().int(),
  actionKey: z.string(),
  outcome: z.enum(['ok', 'error']),
  errorCode: z.string().nullable().describe('The error code of a refused call; null on success'),
  durationMs: z.number().int(),
  arguments: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      'The arguments of the call, contact details and secrets shown as "[redacted]"; null when invalid',
    ),
  targetIds: z.array(z.number().int()).describe('Ids the call named or answered (reservation, event, ...)'),
  approvalId: z
    .number()
    .int()
    .nullable()
    .describe('The approval the call asked for, or the approved call it ran; null when none'),
  createdAt: z.string(),
});
export type ActivityItem = z.infer<typeof activityItem>;

export const APPROVAL_MODES = ['never', 'writes', 'destructive'] as const;
const dailyLimit = z
  .number()
  .int()
  .positive()
  .nullable()
  .default(null)
  .describe('At most this much in any 24 hours; null: no limit');

/** `PUT /api/agents/:id/policy`: the whole policy; an absent field takes its default. */
export const agentPolicyBody = z.strictObject({
  requireApproval: z
    .enum(APPROVAL_MODES)
    .default('never')
    .describe(
      'never; writes: every call that changes something waits for your approval; destructive: only calls that delete or cancel',
    ),
  approvalOverAmount: z
    .number()
    .int()
    .min(0)
    .nullable()
    .default(null)
    .describe(
      'Calls that would charge more than this (minor units of the price currency) wait for your approval',
    ),
  limits: z
    .strictObject({
      bookingsPerDay: dailyLimit.describe('Bookings and holds in any 24 hours; null: no limit'),
      cancellationsPerDay: dailyLimit.describe('Cancellations and releases in any 24 hours; null: no limit'),
      spendPerDay: dailyLimit.describe('Sum of booking prices (minor units) in any 24 hours; null: no limit'),
    })
    .default({ bookingsPerDay: null, cancellationsPerDay: null, spendPerDay: null }),
});
export type AgentPolicyInput = z.infer<typeof agentPolicyBody>;

export const agentPolicy = z.object({
  requireApproval: z.enum(APPROVAL_MODES),
  approvalOverAmount: z.number().int().nullable(),
  limits: z.object({
    bookingsPerDay: z.number().int().nullable(),
    cancellationsPerDay: z.number().int().nullable(),
    spendPerDay: z.number().int().nullable(),
  }),
});
export type AgentPolicy = z.infer<typeof agentPolicy>;

/** No row: approval never asked, no limits. */
export const DEFAULT_POLICY: AgentPolicy = {
  requireApproval: 'never',
  approvalOverAmount: null,
  limits: { bookingsPerDay: null, cancellationsPerDay: null, spendPerDay: null },
};

export const catalogueAction = z.object({
  key: z.string().describe('The MCP tool name is this key with "." replaced by "_"'),
  title: z.string(),
  description: z.string(),
  risk: z.enum(['read', 'write', 'destructive']),
  scopeKinds: z.array(z.enum(['calendar', 'userGroup'])),
  alwaysAllowed: z.boolean().describe('Every agent has it, whatever its permissions'),
});

const named = z.object({ id: z.number().int(), name: z.string() });
export const catalogueResponse = z.object({
  actions: z.array(catalogueAction),
  scopingResources: z.object({
    calendars: z.array(named).describe('Your own calendars: what scope.calendarIds may name'),
    groups: z.array(named).describe('People groups you belong to: what scope.groupIds may name'),
  }),
});
export type CatalogueResponse = z.infer<typeof catalogueResponse>;

export const permissionGroupEntry = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  actionKeys: z.array(z.string()),
  canAssign: z.boolean(),
  requiresGlobalAdmin: z.boolean(),
  highlights: z.array(z.string()),
});
export type PermissionGroupEntry = z.infer<typeof permissionGroupEntry>;
