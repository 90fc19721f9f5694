import { randomBytes } from 'node:crypto';
import { ERROR_CODES } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { CallTask, CallTaskOutcome, CallTaskStatus, CallTaskStore } from '../../mcp/task-types.js';
import type { ApprovalsContext } from './context.js';
import { denyPending } from './decisions.js';
import { type ApprovalRow, type ApprovalTaskRow, createApprovalTaskRepo } from './repo.js';
import { approveUrlOf } from './requests.js';
import { APPROVAL_TTL_MS } from './schemas.js';
import { parsed, view } from './views.js';

/** How long a task is kept: its approval's 24 hours, and a day more to read how it ended. */
export const TASK_TTL_MS = APPROVAL_TTL_MS + 24 * 60 * 60 * 1000;

/** 24 random bytes in base64url: 192 bits, 32 characters. */
const newTaskId = () => randomBytes(24).toString('base64url');

/** The task's status as its approval (and the agent's cancellation) stand. */
function statusOf(task: ApprovalTaskRow, approval: ApprovalRow): CallTaskStatus {
  if (task.cancelledAt !== null) return 'cancelled';
  switch (view(approval).status) {
    case 'pending':
      return 'input_required';
    case 'approved':
      return 'working';
    case 'executed':
      return 'completed';
    default:
      return 'failed';
  }
}

/** How the call ended, once it did. */
function outcomeOf(status: CallTaskStatus, approval: ApprovalRow): CallTaskOutcome | undefined {
  const current = view(approval);
  if (status === 'completed') return { ok: true, output: parsed(approval.result) };
  if (status === 'cancelled')
    return { ok: false, code: 'FORBIDDEN', message: 'The task was cancelled: its approval is denied' };
  if (status !== 'failed') return undefined;
  if (current.status === 'denied')
    return { ok: false, code: 'FORBIDDEN', message: 'The owner denied the approval: nothing ran' };
  if (current.status === 'expired')
    return {
      ok: false,
      code: 'CONFLICT',
      message: 'The approval expired: it was not decided within 24 hours, and nothing ran',
    };
  const error = parsed(approval.result)?.error as { code?: unknown; message?: unknown } | undefined;
  const code = ERROR_CODES.find((known) => known === error?.code) ?? 'INTERNAL';
  return { ok: false, code, message: typeof error?.message === 'string' ? error.message : 'Internal error' };
}

/** Tasks following approvals (DECISIONS.md "MCP frontier"), in the database for every instance. */
export function createApprovalTasks(ctx: ApprovalsContext): CallTaskStore {
  const { db, repo, frontendUrl } = ctx;
  const tasks = createApprovalTaskRepo(db.kysely);

  function taskOf(row: ApprovalTaskRow, approval: ApprovalRow): CallTask {
    const status = statusOf(row, approval);
    const decidedAt = view(approval).decidedAt;
    return {
      taskId: row.id,
      status,
      createdAt: row.createdAt,
      lastUpdatedAt: row.cancelledAt ?? decidedAt ?? row.createdAt,
      ttl: Date.parse(row.expiresAt) - Date.parse(row.createdAt),
      approval: {
        id: approval.id,
        approveUrl: approveUrlOf(frontendUrl, approval.id),
        expiresAt: approval.expiresAt,
      },
      outcome: outcomeOf(status, approval),
    };
  }

  async function found(agentId: number, taskId: string) {
    const row = await tasks.find(agentId, taskId, nowIso());
    const approval = row && (await repo.findForAgent(agentId, row.approvalId));
    return row && approval ? { row, approval } : undefined;
  }

  return {
    async create(agentId, approvalId) {
      const approval = await repo.findForAgent(agentId, approvalId);
      if (!approval) throw new Error(`Approval ${approvalId} is not agent ${agentId}'s`);
      const createdAt = new Date();
      const row: ApprovalTaskRow = {
        id: newTaskId(),
        agentId,
        approvalId,
        createdAt: createdAt.toISOString(),
        expiresAt: new Date(createdAt.getTime() + TASK_TTL_MS).toISOString(),
        cancelledAt: null,
      };
      await tasks.insert(row);
      return taskOf(row, approval);
    },

    async get(agentId, taskId) {
      const task = await found(agentId, taskId);
      return task && taskOf(task.row, task.approval);
    },

    async cancel(agentId, taskId) {
      const task = await found(agentId, taskId);
      if (!task) return 'not_found';
      // The denial and the cancellation in one transaction: no instance reads one without the other.
      const denied = await denyPending(ctx, task.approval.userId, task.approval.id, (trx, row) =>
        createApprovalTaskRepo(trx).markCancelled(taskId, row.decidedAt ?? nowIso()),
      );
      if (denied) return taskOf({ ...task.row, cancelledAt: denied.decidedAt ?? nowIso() }, denied);
      // Decided meanwhile (here or on another instance): as it stands now.
      const now = await found(agentId, taskId);
      return now && taskOf(now.row, now.approval).status === 'working' ? 'running' : 'terminal';
    },
  };
}
