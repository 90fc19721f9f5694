import { type Executor, inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, type DomainError, forbidden, invalidCursor, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ApprovalsContext } from './context.js';
import { type ApprovalRow, createApprovalRepo } from './repo.js';
import type { Approval, ListApprovalsQuery } from './schemas.js';
import { parsed, view } from './views.js';

/** An owner's approvals: read, approved (the stored call then runs once) or denied; an agent reads its own. */
export interface ApprovalDecisions {
  list(actor: Actor, query: ListApprovalsQuery): Promise<{ items: Approval[]; nextCursor: string | null }>;
  get(actor: Actor, id: number): Promise<Approval>;
  /**
   * Approves and runs the stored call once: the pending -> approved step is one
   * conditional update, so of a double click or two instances one runs it; the other
   * answers the approval as it stands. The call runs as the agent is now: a paused or
   * disabled agent's call fails, and is recorded so.
   */
  approve(actor: Actor, id: number): Promise<Approval>;
  deny(actor: Actor, id: number): Promise<Approval>;
  /** `approvals_get`: the calling agent's own approval; another agent's is NOT_FOUND. */
  getForAgent(actor: Actor, id: number): Promise<Approval>;
}

/**
 * Denies the owner's pending approval with its `agent.approval.decided` event; undefined
 * when it was not pending (decided already, here or on another instance) or has expired.
 * The owner's denial, and an agent's cancellation of the task following it.
 */
export function denyPending(
  { db, deps }: ApprovalsContext,
  userId: number,
  id: number,
  alongside?: (trx: Executor, denied: ApprovalRow) => Promise<void>,
): Promise<ApprovalRow | undefined> {
  return inTransaction(db.kysely, async (trx) => {
    const row = await createApprovalRepo(trx).decide(userId, id, 'denied', nowIso());
    if (row) {
      await deps().outbox.append(trx, [
        { type: 'agent.approval.decided', organisationId: null, userId: row.userId, data: view(row) },
      ]);
      await alongside?.(trx, row);
    }
    return row;
  });
}

function requirePerson(actor: Actor) {
  if (actor.agent) throw forbidden('Agents cannot decide approvals: only their owner can');
}

export function createApprovalDecisions(ctx: ApprovalsContext): ApprovalDecisions {
  const { db, deps, repo, calls } = ctx;

  async function requireOwned(actor: Actor, id: number): Promise<ApprovalRow> {
    requirePerson(actor);
    const row = await repo.findOwned(actor.userId, id);
    if (!row) throw notFound('Approval');
    return row;
  }

  /** Why a decision cannot be made now (the approval is not pending any more). */
  function undecidable(row: ApprovalRow): DomainError {
    const current = view(row);
    if (current.status === 'expired')
      return conflict(
        'CONFLICT',
        'This approval has expired: it was not decided within 24 hours, and its call never ran',
      );
    return conflict('CONFLICT', `This approval is already ${current.status}`);
  }

  /**
   * 409 APPROVAL_STALE for an approval that failed because what its call would do now is
   * not what its owner was shown (the reason is in its result, for the agent too).
   */
  function throwIfStale(row: ApprovalRow): void {
    const error = parsed(row.result)?.error as { code?: string; message?: string } | undefined;
    if (row.status === 'failed' && error?.code === 'APPROVAL_STALE')
      throw conflict('APPROVAL_STALE', error.message ?? 'This approval is stale: nothing ran');
  }

  /** Records the decision's outcome with its `agent.approval.decided` event. */
  async function finish(
    id: number,
    status: 'executed' | 'failed',
    result: unknown,
  ): Promise<ApprovalRow | undefined> {
    return inTransaction(db.kysely, async (trx) => {
      const row = await createApprovalRepo(trx).finish(id, status, JSON.stringify(result));
      if (row)
        await deps().outbox.append(trx, [
          { type: 'agent.approval.decided', organisationId: null, userId: row.userId, data: view(row) },
        ]);
      return row;
    });
  }

  return {
    async list(
      actor: Actor,
      query: ListApprovalsQuery,
    ): Promise<{ items: Approval[]; nextCursor: string | null }> {
      requirePerson(actor);
      try {
        const { rows, nextCursor } = await repo.list(actor.userId, query);
        return { items: rows.map((row) => view(row)), nextCursor };
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    async get(actor: Actor, id: number): Promise<Approval> {
      return view(await requireOwned(actor, id));
    },

    async approve(actor: Actor, id: number): Promise<Approval> {
      const current = await requireOwned(actor, id);
      const decided = await repo.decide(actor.userId, id, 'approved', nowIso());
      if (!decided) {
        const now = (await repo.findOwned(actor.userId, id)) ?? current;
        throwIfStale(now);
        if (['approved', 'executed', 'failed'].includes(now.status)) return view(now);
        throw undecidable(now);
      }
      const run = calls.runner;
      const outcome = run
        ? await run({
            agentId: decided.agentId,
            actionKey: decided.actionKey,
            arguments: parsed(decided.arguments),
            approvalId: decided.id,
            organisationId: decided.organisationId,
          }).catch(() => ({ ok: false as const, code: 'INTERNAL' as const, message: 'Internal error' }))
        : { ok: false as const, code: 'UNAVAILABLE' as const, message: 'The tool runtime is not available' };
      const finished = outcome.ok
        ? await finish(id, 'executed', outcome.output)
        : await finish(id, 'failed', { error: { code: outcome.code, message: outcome.message } });
      throwIfStale(finished ?? decided);
      return view(finished ?? decided);
    },

    async deny(actor: Actor, id: number): Promise<Approval> {
      await requireOwned(actor, id);
      const denied = await denyPending(ctx, actor.userId, id);
      if (denied) return view(denied);
      const now = await requireOwned(actor, id);
      if (now.status === 'denied') return view(now);
      throw undecidable(now);
    },

    async getForAgent(actor: Actor, id: number): Promise<Approval> {
      if (!actor.agent) throw notFound('Approval');
      const row = await repo.findForAgent(actor.agent.id, id);
      if (!row) throw notFound('Approval');
      return view(row);
    },
  };
}
