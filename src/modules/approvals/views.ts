import type { CallCustomer, ShownFacts } from './facts.js';
import type { BookedTime } from './policy.js';
import type { ApprovalRow } from './repo.js';
import type { Approval } from './schemas.js';

/** A stored JSON object (arguments, result), or null. */
export const parsed = (text: string | null) =>
  text === null ? null : (JSON.parse(text) as Record<string, unknown>);

/** What an approval showed its owner: checked again before its call runs. */
export const shownFacts = (row: ApprovalRow): ShownFacts => ({
  organisationId: row.organisationId,
  times: row.facts === null ? [] : (JSON.parse(row.facts) as { times: BookedTime[] }).times,
  amount: row.amount,
  currency: row.currency,
});

/** What an approval keeps beside its times: who asked, and for whom (absent on older approvals). */
export interface KeptFacts {
  times: BookedTime[];
  agentName?: string;
  customer?: CallCustomer | null;
}

/** The API record; a pending approval past its time reads as expired before the sweep gets to it. */
export function view(row: ApprovalRow, now = Date.now()): Approval {
  const lapsed = row.status === 'pending' && Date.parse(row.expiresAt) <= now;
  const kept = row.facts === null ? null : (JSON.parse(row.facts) as KeptFacts);
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: kept?.agentName ?? `Agent ${row.agentId}`,
    customer: kept?.customer ?? null,
    actionKey: row.actionKey,
    arguments: parsed(row.arguments) ?? {},
    summary: row.summary,
    status: lapsed ? 'expired' : row.status,
    result: parsed(row.result),
    createdAt: row.createdAt,
    decidedAt: lapsed ? row.expiresAt : row.decidedAt,
    expiresAt: row.expiresAt,
  };
}
