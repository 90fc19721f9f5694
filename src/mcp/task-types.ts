import type { ErrorCode } from '../lib/errors.js';

/** The MCP task statuses (2025-11-25 "utilities/tasks"). */
export type CallTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** How the call a task follows ended: its tool's output, or the refusal it answered. */
export type CallTaskOutcome = { ok: true; output: unknown } | { ok: false; code: ErrorCode; message: string };

/**
 * A tool call that needs approval, as a task: its status follows the approval (pending:
 * input_required; approved and running: working; executed: completed; denied, expired
 * or failed: failed), and the agent's cancellation makes it cancelled.
 */
export interface CallTask {
  taskId: string;
  status: CallTaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds from `createdAt` the task is kept. */
  ttl: number;
  approval: { id: number; approveUrl: string; expiresAt: string };
  /** Once the task is terminal: how the call ended (for cancelled, the denial). */
  outcome?: CallTaskOutcome | undefined;
}

/** Why a task could not be cancelled: none of the agent's, or already finished (or running). */
export type TaskCancelRefusal = 'not_found' | 'terminal' | 'running';

/**
 * The tasks of approval-requiring calls (the approvals module keeps them in the database,
 * so any instance answers for any task). Another agent's task reads exactly like an
 * unknown one.
 */
export interface CallTaskStore {
  /** A task following the agent's new approval `approvalId`. */
  create(agentId: number, approvalId: number): Promise<CallTask>;
  get(agentId: number, taskId: string): Promise<CallTask | undefined>;
  /** Denies the task's pending approval and marks the task cancelled. */
  cancel(agentId: number, taskId: string): Promise<CallTask | TaskCancelRefusal>;
}
