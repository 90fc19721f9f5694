import { z } from 'zod';
import { entityId, pageQuery } from '../../http/schemas.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'executed', 'failed'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** How long an approval waits for its owner (DECISIONS.md: 24 hours). */
export const APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

export const approval = z.object({
  id: z.number().int(),
  agentId: z.number().int(),
  agentName: z.string().describe('The name of the agent that asked, as it was when it asked'),
  customer: z
    .object({ name: z.string().nullable(), email: z.string().nullable() })
    .nullable()
    .describe('Whose reservation the call books or changes (its customer); null when it names none'),
  actionKey: z.string().describe('The action (tool name with "." for "_") the agent called'),
  arguments: z.record(z.string(), z.unknown()).describe('The stored call: exactly what runs when approved'),
  summary: z
    .string()
    .describe('The call in words, e.g. "Book Room A, Tue 3 Mar 10:00-11:00 Europe/Berlin, 40.00 EUR"'),
  status: z
    .enum(APPROVAL_STATUSES)
    .describe(
      'pending (waiting for you), approved (running), executed (ran; result is its answer), failed (refused when run; result.error), denied, expired (not decided within 24 hours)',
    ),
  result: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('What the call answered when it ran ({error: {code, message}} when it failed); null before'),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  expiresAt: z.string(),
});
export type Approval = z.infer<typeof approval>;

export const listApprovalsQuery = z.strictObject({
  status: z.enum(APPROVAL_STATUSES).optional().describe('Only approvals in this status'),
  ...pageQuery,
});
export type ListApprovalsQuery = z.infer<typeof listApprovalsQuery>;

export const approvalsGetInput = z.strictObject({
  approvalId: entityId.describe('approval.id of a call that answered approvalRequired'),
});
