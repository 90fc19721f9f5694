// What the inbox and an approval's page share: deciding, the agents' names, an approval's status
// badge and what became of it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { unwrap } from '../../api/client.js';
import { useAgents } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Approval, ApprovalStatus } from '../../api/types.js';
import { approvalStatusWords } from '../agents/agent-values.js';

export type Decision = 'approve' | 'deny';

/** Approve or deny; the answer is the approval as it now is (executed, failed, denied). */
export function useDecide(onDecided?: (approval: Approval, decision: Decision) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision }: { id: number; decision: Decision }) =>
      unwrap(
        decision === 'approve'
          ? authed.POST('/api/approvals/{id}/approve', { params: { path: { id } } })
          : authed.POST('/api/approvals/{id}/deny', { params: { path: { id } } }),
      ),
    onSuccess: async (approval, { decision }) => {
      queryClient.setQueryData(queryKeys.approval(approval.id), approval);
      onDecided?.(approval, decision);
      await queryClient.invalidateQueries({ queryKey: queryKeys.approvals() });
    },
  });
}

export function useAgentNames() {
  const agents = useAgents();
  return (id: number, asked?: string) =>
    agents.data?.find((a) => a.id === id)?.name ?? asked ?? `Agent ${id}`;
}

export function StatusBadge(props: { status: ApprovalStatus }) {
  return <span className={`badge approval-${props.status}`}>{approvalStatusWords[props.status]}</span>;
}

/** What became of an approval, in words, with what the call answered or its error. */
export function Outcome(props: { approval: Approval }) {
  const { approval: a } = props;
  const result = a.result as { id?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  switch (a.status) {
    case 'executed': {
      const reservationId =
        a.actionKey.startsWith('reservations.') && typeof result?.id === 'number' ? result.id : null;
      return (
        <div className="outcome">
          <p>
            Executed: the call ran.
            {reservationId !== null ? (
              <>
                {' '}
                <Link to={`/app/reservations/${reservationId}`}>Reservation {reservationId}</Link>
              </>
            ) : null}
          </p>
          {result ? (
            <details>
              <summary>What it answered</summary>
              <pre>{JSON.stringify(result, null, 2)}</pre>
            </details>
          ) : null}
        </div>
      );
    }
    case 'failed':
      return (
        <p className="outcome">
          Failed when it ran: {String(result?.error?.message ?? 'no reason given')}
          {result?.error?.code ? ` (${String(result.error.code)})` : ''}
        </p>
      );
    case 'denied':
      return <p className="outcome">Denied: it never ran.</p>;
    case 'expired':
      return <p className="outcome">Not decided within 24 hours: it never ran.</p>;
    case 'approved':
      return <p className="outcome">Approved: running now.</p>;
    default:
      return null;
  }
}
