import type { CallTaskStore } from '../../mcp/task-types.js';
import { type ApprovalsServiceDeps, createApprovalsContext } from './context.js';
import { type ApprovalDecisions, createApprovalDecisions } from './decisions.js';
import { type ApprovalRequests, createApprovalRequests } from './requests.js';
import { createApprovalTasks } from './tasks.js';

export type { ApprovalDependencies, ApprovalsServiceDeps } from './context.js';

/** The job that expires approvals nobody decided within 24 hours. */
export const APPROVAL_EXPIRY_JOB = 'agent_approval_expiry';
export const EXPIRY_EVERY_MINUTES = 5;

/**
 * Agents acting safely (DECISIONS.md): the gate the MCP runtime asks before every
 * writing tool call (approval mode, amount threshold, daily limits), and the approvals
 * it creates: the stored call, its summary, the owner's decision, and the one run of
 * an approved call, as the agent is at that moment.
 */
export interface ApprovalsService extends ApprovalRequests, ApprovalDecisions {
  /** The MCP tasks that follow approvals (task-augmented tool calls that need one). */
  tasks: CallTaskStore;
}

export function createApprovalsService(deps: ApprovalsServiceDeps): ApprovalsService {
  const ctx = createApprovalsContext(deps);
  return {
    ...createApprovalRequests(ctx),
    ...createApprovalDecisions(ctx),
    tasks: createApprovalTasks(ctx),
  };
}
