import { inTransaction } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import type { GatedCall, PendingApproval, ToolCallGate } from '../../mcp/types.js';
import type { ApprovalsContext } from './context.js';
import type { CallFacts } from './facts.js';
import { createAdmission } from './gate.js';
import { createApprovalRepo, createApprovalTaskRepo } from './repo.js';
import { APPROVAL_TTL_MS } from './schemas.js';
import { createSummariser } from './summary.js';
import { type KeptFacts, shownFacts, view } from './views.js';

/** Approvals asked for: the gate before every writing tool call, and the expiry of undecided ones. */
export interface ApprovalRequests {
  /** The gate the MCP runtime asks before every writing tool call (approval mode, amount threshold, daily limits). */
  gate: ToolCallGate;
  /** Expires what is due, each with its `agent.approval.decided` event; answers how many. */
  expireDue(): Promise<number>;
}

/** Where the owner decides approval `id` (the web app's page). */
export const approveUrlOf = (frontendUrl: string, id: number) =>
  `${frontendUrl.replace(/\/+$/, '')}/approvals/${id}`;

export function createApprovalRequests(ctx: ApprovalsContext): ApprovalRequests {
  const { db, frontendUrl, deps, repo, calls } = ctx;
  const approveUrl = (id: number) => approveUrlOf(frontendUrl, id);
  const summarise = createSummariser(deps);

  /**
   * Expires what is due, each with its `agent.approval.decided` event; answers how many.
   * The tasks past their time go with it.
   */
  async function expireDue(): Promise<number> {
    await createApprovalTaskRepo(db.kysely).deleteExpired(nowIso());
    return inTransaction(db.kysely, async (trx) => {
      const expired = await createApprovalRepo(trx).expireDue(nowIso());
      if (expired.length > 0)
        await deps().outbox.append(
          trx,
          expired.map((row) => ({
            type: 'agent.approval.decided' as const,
            organisationId: null,
            userId: row.userId,
            data: view(row),
          })),
        );
      return expired.length;
    });
  }

  /**
   * Stores the call with what it was shown from (the organisation it was asked in, the
   * reservations and price of its summary) and tells the owner (`agent.approval.requested`).
   */
  async function request(
    call: GatedCall,
    facts: CallFacts,
    organisationId: number | null,
  ): Promise<PendingApproval> {
    const summary = await summarise(call, facts);
    const now = new Date();
    const row = await inTransaction(db.kysely, async (trx) => {
      const created = await createApprovalRepo(trx).insert({
        agentId: call.agent.id,
        userId: call.agent.userId,
        actionKey: call.actionKey,
        arguments: JSON.stringify(call.input),
        summary,
        amount: facts.amount,
        currency: facts.currency,
        organisationId,
        facts: JSON.stringify({
          times: facts.times,
          agentName: call.agent.name,
          customer: facts.customer ?? null,
        } satisfies KeptFacts),
        status: 'pending',
        result: null,
        createdAt: now.toISOString(),
        decidedAt: null,
        expiresAt: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
      });
      await deps().outbox.append(trx, [
        {
          type: 'agent.approval.requested',
          organisationId: null,
          userId: created.userId,
          data: view(created),
        },
      ]);
      return created;
    });
    return {
      id: row.id,
      status: 'pending',
      expiresAt: row.expiresAt,
      approveUrl: approveUrl(row.id),
      // For the URL-mode elicitation that asks the person (src/mcp/elicitation.ts).
      summary,
    };
  }

  const gate: ToolCallGate = {
    bindRunner(run) {
      calls.runner = run;
    },
    admit: createAdmission({
      deps,
      request,
      async shownOf(agentId, approvalId) {
        const row = await repo.findForAgent(agentId, approvalId);
        return row && shownFacts(row);
      },
    }),
  };

  return { gate, expireDue };
}
